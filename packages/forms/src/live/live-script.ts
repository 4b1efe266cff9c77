/* The browser side of live validation (live-spec.ts), part of the form script (render/assets.ts
   joins it in after rules/rules-script.ts, whose `valueOf` and `ruleValue` it reads values with):
   a field is checked when the user leaves or changes it, and again as they type once it shows an
   error; its messages go to its error box (`aria-live`), `aria-invalid` and `aria-describedby`
   follow. The server's `failsCheck` and `interpolate` come as source, the messages as the server
   translated them, so the page says what a submit would say; the rest is asked of the server. */
import { failsCheck } from '../validate/constraints.js';
import { interpolate } from '../validate/messages.js';

/**
 * Script text defining `live(form)` for a form with `data-roost-live`.
 *
 * @example
 * const script = `(function () { ${rulesScript} ${liveScript} live(form); })();`;
 */
export const liveScript = `  ${failsCheck.toString()}
  ${interpolate.toString()}
  function live(form) {
    if (form.getAttribute('data-roost-live-init')) return;
    form.setAttribute('data-roost-live-init', '1');
    var spec = JSON.parse(form.getAttribute('data-roost-live'));
    var asked = {}, timers = {};
    // The inputs the user has left or changed: of a group or repeat only theirs show an error, so
    // a change in one item does not flag fields not yet reached (or shown again by a rule). A page
    // that came back from a submit with errors shows every error, as the server rendered it.
    var touched = {}, submitted = Boolean(form.querySelector('[data-roost-errors]'));
    function fieldOf(name) {
      var top = (name || '').replace(/-confirm$/, '').split('.')[0];
      return Object.prototype.hasOwnProperty.call(spec.fields, top) ? spec.fields[top] : null;
    }
    function inputsOf(f) {
      return Array.prototype.filter.call(form.elements, function (el) {
        return el.name === f.name || el.name === f.name + '-confirm' || el.name.indexOf(f.name + '.') === 0;
      });
    }
    // A class key may hold several names (form-classes.ts), or none.
    function toggle(el, names, on) {
      if (el) (names || '').split(/\\s+/).filter(Boolean).forEach(function (n) { el.classList.toggle(n, on); });
    }
    // \`inputs\`: of a group or repeat, the request names of the inputs at fault (the server's answer);
    // \`faults\`: each one's messages, of which those of inputs not touched are left out.
    function show(f, messages, inputs, faults) {
      if (faults && !submitted) {
        var untouched = faults.filter(function (x) { return !touched[x.input]; });
        var kept = faults.filter(function (x) { return touched[x.input]; });
        messages = messages.filter(function (m) {
          return kept.some(function (x) { return x.messages.indexOf(m) >= 0; }) ||
            !untouched.some(function (x) { return x.messages.indexOf(m) >= 0; });
        });
        inputs = inputs.filter(function (n) { return !untouched.some(function (x) { return x.input === n; }); });
      }
      inputsOf(f).forEach(function (el) {
        if (el.name === f.name || el.id === f.oid) return;
        if (inputs && inputs.indexOf(el.name) >= 0) el.setAttribute('aria-invalid', 'true');
        else el.removeAttribute('aria-invalid');
      });
      var box = document.getElementById(f.oid + '-error');
      var target = document.getElementById(f.oid);
      var bad = messages.length > 0;
      if (box) {
        box.textContent = '';
        messages.forEach(function (m) {
          var line = document.createElement('div');
          line.textContent = m;
          box.appendChild(line);
        });
      }
      toggle(document.getElementById(f.oid + '-label'), spec.errorClass, bad);
      toggle(document.getElementById('item-' + f.name), spec.errorClass, bad);
      if (!target) return;
      if (bad) target.setAttribute('aria-invalid', 'true'); else target.removeAttribute('aria-invalid');
      toggle(target, spec.invalidClass, bad);
      var ids = (target.getAttribute('aria-describedby') || '').split(' ')
        .filter(function (id) { return id && id !== f.oid + '-error'; });
      if (bad && box) ids.unshift(f.oid + '-error');
      if (ids.length) target.setAttribute('aria-describedby', ids.join(' '));
      else target.removeAttribute('aria-describedby');
    }
    function values() {
      var out = {};
      new FormData(form).forEach(function (v, k) {
        if (typeof v !== 'string') return;
        if (k in out) out[k] = [].concat(out[k], v); else out[k] = v;
      });
      return out;
    }
    // What the page can say: null when it must leave the field to the server (a group, a validator
    // that failed to run here), else the messages (none: nothing wrong here).
    function local(f, inputs) {
      if (f.kind === 'other') return null;
      var value = ruleValue(valueOf(form, f.name, f.kind), f.kind, f.ids);
      if (f.trim && typeof value === 'string') value = value.trim();
      var required = inputs.some(function (el) { return el.required; });
      var empty = value === undefined || value === '' || (Array.isArray(value) && !value.length) ||
        (f.single && value === false);
      if (empty) return required ? [f.requiredMessage] : [];
      var found = f.checks.filter(function (c) { return failsCheck(c, value); })
        .map(function (c) { return c.message; });
      if (found.length) return found;
      var undecided = false;
      for (var i = 0; i < f.validators.length; i += 1) {
        var v = f.validators[i];
        try {
          var fn = new Function('return (' + v.source + ')')();
          var t = function (id, mapping) { return interpolate(v.catalog[id] || id, mapping); };
          var said = fn(value, { values: values(), t: t });
          if (typeof said === 'string' && said) return [t(said)];
        } catch (e) {
          // It failed in the page (a Content-Security-Policy without 'unsafe-eval'): ask the server.
          undecided = true;
        }
      }
      return undecided ? null : [];
    }
    function ask(f) {
      var n = (asked[f.name] || 0) + 1;
      asked[f.name] = n;
      var body = new URLSearchParams();
      new FormData(form).forEach(function (v, k) { if (typeof v === 'string') body.append(k, v); });
      body.append(spec.key, f.name);
      var get = (form.getAttribute('method') || 'post').toUpperCase() === 'GET';
      var url = new URL(form.getAttribute('action') || location.href, location.href);
      if (get) body.forEach(function (v, k) { url.searchParams.append(k, v); });
      fetch(url.toString(), {
        method: get ? 'GET' : 'POST',
        body: get ? undefined : body,
        headers: { 'X-Requested-With': 'XMLHttpRequest', Accept: 'application/json' },
        credentials: 'same-origin',
      }).then(function (r) { return r.json(); }).then(function (answer) {
        if (asked[f.name] !== n || !answer || !Array.isArray(answer.messages)) return;
        show(f, answer.messages, answer.inputs || [], answer.faults);
      }).catch(function () { /* the submit still decides */ });
    }
    function check(f) {
      var inputs = inputsOf(f);
      // A field a rule hides or disables is not validated (rules/rule-box.ts); an answer still on
      // its way, or a check still waiting, must not bring its error back. ':disabled', not
      // .disabled: the rule disables the fieldset around the inputs, not each input.
      if (!inputs.length || inputs.every(function (el) { return el.matches(':disabled'); })) {
        clearTimeout(timers[f.name]);
        asked[f.name] = (asked[f.name] || 0) + 1;
        show(f, []);
        return;
      }
      var found = local(f, inputs);
      if (found) show(f, found);
      if (found && (found.length || !f.remote)) return;
      ask(f);
    }
    // Whether a field shows an error now (a live one, or the server's after a submit).
    function marked(f) {
      var box = document.getElementById(f.oid + '-error');
      return (box && box.textContent !== '') ||
        inputsOf(f).some(function (el) { return el.getAttribute('aria-invalid') === 'true'; });
    }
    // A rule hid, disabled, showed or stopped requiring a field (rules/rules-script.ts): a field
    // showing an error is checked again, so a hidden one's error goes (for a field in a group or a
    // repeat item, the server answers for the whole without it) and does not show again with it.
    form.addEventListener('roost:rule', function (ev) {
      // What a rule hides or disables counts as not touched again, so it shows again clean.
      if (ev.target.disabled) each(ev.target.querySelectorAll('[name]'), function (el) { delete touched[el.name]; });
      var el = ev.target.querySelector('input[name], select[name], textarea[name], button[name]');
      var f = el && fieldOf(el.name.split('\u0024')[0]);
      if (f && marked(f)) check(f);
    });
    var typing = /^(text|search|email|url|tel|password|number|textarea)$/;
    form.addEventListener('focusout', function (ev) {
      var f = fieldOf(ev.target.name);
      if (ev.target.name) touched[ev.target.name] = true;
      if (f) check(f);
    });
    form.addEventListener('change', function (ev) {
      var f = fieldOf(ev.target.name);
      if (ev.target.name) touched[ev.target.name] = true;
      if (f && !typing.test(ev.target.type)) check(f);
    });
    form.addEventListener('input', function (ev) {
      var f = fieldOf(ev.target.name);
      var target = f && document.getElementById(f.oid);
      if (!target || target.getAttribute('aria-invalid') !== 'true') return;
      clearTimeout(timers[f.name]);
      timers[f.name] = setTimeout(function () { check(f); }, 300);
    });
  }
`;
