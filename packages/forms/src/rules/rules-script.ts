/* The browser side of rules (rules.ts), part of the form script (render/assets.ts joins it in,
   where `each` is defined): the server's own condition and value functions, carried as source so a
   rule decides alike on both sides, and `rules(root)`, which keeps each ruled field's fieldset
   (rule-box.ts) in step with the values. */
import { matchesCondition } from './condition.js';
import { ruleValue } from './rules.js';

/**
 * Script text defining `matchesCondition`, `ruleValue`, `valueOf(form, name, kind)` and
 * `rules(root)`.
 *
 * @example
 * const script = `(function () { function each(l, f) { … } ${rulesScript} rules(document); })();`;
 */
export const rulesScript = `  // The server's own functions (rules/condition.ts, rules/rules.ts): alike on both sides.
  ${matchesCondition.toString()}
  ${ruleValue.toString()}
  // A field's value by its request name, as the server's widget reads it (fields/choice-widgets.ts).
  function valueOf(form, name, kind) {
    var els = Array.prototype.filter.call(form.elements, function (el) { return el.name === name; });
    if (!els.length) return undefined;
    var first = els[0];
    if (first.type === 'checkbox' && kind === 'bool') return first.checked ? 'true' : 'false';
    if (first.type === 'checkbox' || first.type === 'radio') {
      var on = els.filter(function (el) { return el.checked; }).map(function (el) { return el.value; });
      return first.type === 'radio' ? on[0] : on;
    }
    if (first.multiple) return Array.prototype.filter.call(first.options, function (o) { return o.selected; })
      .map(function (o) { return o.value; });
    return first.value;
  }
  // Rules (rules/rule-box.ts): each ruled field's fieldset is hidden and disabled (neither checked
  // nor sent) while its rules say so, and its inputs required while a rule requires them. A change
  // of that state is told by a 'roost:rule' event on the fieldset (live/live-script.ts checks the
  // field again, so a hidden field's live error goes and does not come back when it shows).
  function rules(root) {
    each(root.querySelectorAll('[data-roost-rules]'), function (box) {
      if (box.getAttribute('data-roost-init')) return;
      box.setAttribute('data-roost-init', '1');
      var spec = JSON.parse(box.getAttribute('data-roost-rules'));
      var form = box.closest('form');
      var requires = spec.open || spec.rules.some(function (r) { return r.effect === 'REQUIRE'; });
      var last = null;
      function update() {
        if (!box.isConnected) return;
        var shown = true, enabled = true, required = spec.required;
        spec.rules.forEach(function (r) {
          // A rule on a field not on this page (another step's) came decided by the server.
          var holds = 'holds' in r ? r.holds
            : matchesCondition(r.schema, ruleValue(valueOf(form, r.name, r.kind), r.kind, r.ids));
          if (r.effect === 'SHOW') shown = shown && holds;
          else if (r.effect === 'HIDE') shown = shown && !holds;
          else if (r.effect === 'ENABLE') enabled = enabled && holds;
          else if (r.effect === 'DISABLE') enabled = enabled && !holds;
          else required = required || holds;
        });
        box.hidden = !shown;
        box.disabled = !(shown && enabled);
        if (requires) {
          each(box.querySelectorAll('input, select, textarea'), function (el) {
            var group = form.querySelectorAll('[name="' + CSS.escape(el.name) + '"]').length > 1;
            if (el.type === 'hidden' || (el.type === 'checkbox' && group)) return;
            el.required = required;
          });
          var label = document.getElementById(spec.label);
          if (label && spec.requiredClass) label.classList.toggle(spec.requiredClass, required);
        }
        var now = [shown, enabled, required].join();
        if (last !== null && now !== last) box.dispatchEvent(new CustomEvent('roost:rule', { bubbles: true }));
        last = now;
      }
      form.addEventListener('input', update);
      form.addEventListener('change', update);
      update();
    });
  }
`;
