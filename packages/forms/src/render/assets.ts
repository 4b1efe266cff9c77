/* The browser side of the library: one small script without dependencies (ajax submission,
   the upload progress bar, rules — a controlset's too) and a few css rules. The host serves them under the
   urls `htmlHead()` produces (see `FormAsset` and `formAssets`). */
import { rulesScript } from '../rules/rules-script.js';
import { liveScript } from '../live/live-script.js';
import { wizardScript } from '../wizard/wizard-script.js';

const script = `(function () {
  'use strict';
  function each(list, fn) { Array.prototype.forEach.call(list, fn); }
${rulesScript}
${liveScript}
${wizardScript}
  function ajaxify(form) {
    if (form.getAttribute('data-roost-init')) return;
    form.setAttribute('data-roost-init', '1');
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      send(form, ev.submitter && ev.submitter.name ? [ev.submitter.name, ev.submitter.value] : null, false);
    });
  }
  // Sends the form with the pressed button's name and value and puts the reply in its place.
  // 'restoring': the browser's history went to a step of a wizard (wizard/wizard-script.ts).
  function send(form, pressed, restoring) {
    var data = new FormData(form);
    if (pressed) data.append(pressed[0], pressed[1]);
    var method = (form.getAttribute('method') || 'post').toUpperCase();
    // Not form.action: a field named "action" (WorkflowForm has one) shadows that property.
    var url = form.getAttribute('action') || location.href;
    var xhr = new XMLHttpRequest();
    if (method === 'GET') {
      var u = new URL(url, location.href);
      data.forEach(function (v, k) { if (typeof v === 'string') u.searchParams.append(k, v); });
      url = u.toString();
    }
    xhr.open(method, url);
    xhr.setRequestHeader('X-Requested-With', 'XMLHttpRequest');
    var mode = form.getAttribute('data-progress') || 'none';
    var box = form.querySelector('[data-roost-progress]');
    var bar = box && box.firstElementChild;
    var percent = 0, uploading = true, timer = 0;
    function show() {
      if (!box) return;
      box.hidden = false;
      bar.style.width = percent + '%';
      bar.setAttribute('aria-valuenow', String(percent));
    }
    if (box && mode !== 'none') {
      if (mode === 'always') show();
      else timer = setTimeout(function () { if (uploading) show(); }, 500);
      xhr.upload.addEventListener('progress', function (e) {
        if (e.lengthComputable) percent = Math.min(98, Math.round((e.loaded / e.total) * 100));
        if (!box.hidden) show();
      });
      xhr.upload.addEventListener('load', function () { uploading = false; });
    }
    xhr.onload = function () {
      clearTimeout(timer);
      var relocate = xhr.getResponseHeader('X-Relocate');
      if (relocate) { location.href = relocate; return; }
      if (box && !box.hidden) { percent = 100; show(); }
      var target = form.closest('[data-roost-form-container]') || form;
      var tmp = document.createElement('div');
      tmp.innerHTML = xhr.responseText;
      var nodes = Array.prototype.slice.call(tmp.childNodes);
      target.replaceWith.apply(target, nodes);
      init(document);
      // A wizard's step over ajax: an entry in the browser's history of its own, or, when the
      // history went there, this entry set to the step shown (a step refused stays where it is).
      nodes.forEach(function (n) {
        if (n.matches && n.matches('[data-roost-form-container]')) recordStep(n, !restoring);
      });
      var focus = null;
      nodes.forEach(function (n) {
        if (!focus && n.querySelector) {
          focus = n.querySelector('[data-roost-errors]') ||
            (n.matches && n.matches('[role=status]') ? n : n.querySelector('[role=status]'));
        }
      });
      // A wizard's next step (wizard/step-indicator.ts): focus goes to the step now current,
      // never to <body> with the pressed button gone.
      nodes.forEach(function (n) {
        if (!focus && n.querySelector) focus = n.querySelector('[aria-current=step]');
      });
      if (focus) { focus.setAttribute('tabindex', '-1'); focus.focus(); }
      var detail = { result: xhr.getResponseHeader('X-Result') === 'true', status: xhr.status };
      document.dispatchEvent(new CustomEvent('roost:form-result', { detail: detail }));
    };
    xhr.onerror = function () { clearTimeout(timer); form.removeAttribute('data-roost-init'); form.submit(); };
    xhr.send(method === 'GET' ? null : data);
  }
  // Repeating groups (fields/group-widgets.ts): Add clones the item template under the next
  // index, Remove takes the item out; without this script both buttons go to the server. Each box
  // names its own placeholders (one pair per depth), so cloning an outer item leaves the template
  // of a repeat inside it intact; the new item's own repeats are started at once.
  function repeats(root) {
    each(root.querySelectorAll('[data-roost-repeat]'), function (box) {
      if (box.getAttribute('data-roost-init')) return;
      box.setAttribute('data-roost-init', '1');
      var template = box.querySelector(':scope > template[data-roost-repeat-template]');
      var addButton = box.querySelector(':scope > [data-roost-repeat-add]');
      var max = box.getAttribute('data-roost-max');
      function items() { return box.querySelectorAll(':scope > [data-roost-item]'); }
      function limit() { if (addButton && max !== null) addButton.disabled = items().length >= Number(max); }
      function firstInput(el) { return el && el.querySelector('input, select, textarea, button'); }
      // Move up / Move down in place: the item's inputs keep their names, the page's order is the
      // order sent (fields/group-widgets.ts reads items in request order). Legends are numbered
      // again, focus stays on the pressed control and the new place is announced.
      function move(item, step, focus) {
        var list = Array.prototype.slice.call(items());
        var at = list.indexOf(item), to = at + step;
        var announce = box.querySelector(':scope > [data-roost-announce]');
        var label = box.getAttribute('data-roost-label') || '';
        if (at >= 0 && to >= 0 && to < list.length) {
          if (step < 0) box.insertBefore(item, list[to]); else box.insertBefore(item, list[to].nextSibling);
          each(items(), function (el, i) {
            var legend = el.querySelector(':scope > legend');
            if (legend) legend.textContent = label + ' ' + (i + 1);
          });
        } else to = at;
        if (focus) focus.focus();
        if (announce) {
          announce.textContent = (announce.getAttribute('data-roost-announce') || '')
            .split('\u0024{item}').join(label).split('\u0024{position}').join(String(to + 1))
            .split('\u0024{count}').join(String(list.length));
        }
      }
      // Dragging an item by its legend with the pointer moves it to where it is dropped.
      var dragged = null;
      box.addEventListener('dragstart', function (ev) {
        var item = ev.target.closest && ev.target.closest('[data-roost-item]');
        if (!item || item.parentElement !== box || ev.target.tagName !== 'LEGEND') return;
        dragged = item;
        if (ev.dataTransfer) { ev.dataTransfer.effectAllowed = 'move'; ev.dataTransfer.setData('text/plain', ''); }
      });
      box.addEventListener('dragover', function (ev) { if (dragged) ev.preventDefault(); });
      box.addEventListener('drop', function (ev) {
        var target = ev.target.closest && ev.target.closest('[data-roost-item]');
        if (!dragged || !target || target.parentElement !== box || target === dragged) { dragged = null; return; }
        ev.preventDefault();
        var list = Array.prototype.slice.call(items());
        move(dragged, list.indexOf(target) - list.indexOf(dragged), null);
        dragged = null;
      });
      function handle(el) { var l = el.querySelector(':scope > legend'); if (l) l.setAttribute('draggable', 'true'); }
      each(items(), handle);
      box.addEventListener('click', function (ev) {
        var button = ev.target.closest && ev.target.closest('button');
        if (!button || button.closest('[data-roost-repeat]') !== box) return;
        if (button.hasAttribute('data-roost-repeat-remove')) {
          ev.preventDefault();
          var item = button.closest('[data-roost-item]');
          if (!item) return;
          var after = item.nextElementSibling, before = item.previousElementSibling;
          var neighbour = after && after.hasAttribute('data-roost-item') ? after :
            (before && before.hasAttribute('data-roost-item') ? before : null);
          item.remove();
          limit();
          // Focus stays in the list (the neighbouring item, else Add), never falls to <body>.
          var focus = firstInput(neighbour) || addButton;
          if (focus) focus.focus();
        } else if (button.hasAttribute('data-roost-repeat-up') || button.hasAttribute('data-roost-repeat-down')) {
          ev.preventDefault();
          move(button.closest('[data-roost-item]'), button.hasAttribute('data-roost-repeat-up') ? -1 : 1, button);
        } else if (button.hasAttribute('data-roost-repeat-add') && template) {
          ev.preventDefault();
          if (max !== null && items().length >= Number(max)) return;
          var next = Number(box.getAttribute('data-roost-next') || '0');
          box.setAttribute('data-roost-next', String(next + 1));
          var html = template.innerHTML.split(box.getAttribute('data-roost-index') || '__index__').join(String(next));
          html = html.split(box.getAttribute('data-roost-position') || '__position__').join(String(items().length + 1));
          template.insertAdjacentHTML('beforebegin', html);
          var added = template.previousElementSibling;
          if (added) { handle(added); repeats(added); rules(added); }
          limit();
          var first = added && added.querySelector('input, select, textarea');
          if (first) first.focus();
        }
      });
    });
  }
  function init(root) {
    rules(root);
    repeats(root);
    each(root.querySelectorAll('form[data-ajax="true"]'), ajaxify);
    each(root.querySelectorAll('form[data-roost-live]'), live);
  }
  // A page that comes back with errors (no ajax) starts at its error summary, as an ajax reply does.
  function start() {
    init(document);
    each(document.querySelectorAll('form[data-ajax="true"]'), function (form) {
      recordStep(form.closest('[data-roost-form-container]'), false);
    });
    var summary = document.querySelector('form[data-roost-form] [data-roost-errors]');
    if (summary) summary.focus();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
`;

// The library's own small stylesheet for hosts without a framework: a two-column layout that
// folds on phones, the required marker, errors in sight (colour and text, never colour alone),
// groups, the progress bar. The layout rules sit in :where(), so any rule of the host wins. Colours keep a contrast of
// at least 4.5:1 on white (axe-core checks it in test/accessibility.test.ts).
const css = `[data-roost-form-container] [hidden]{display:none!important}
.roost-form label.required::after{content:" *";color:#b42318}
.roost-form .is-invalid{border-color:#b42318}
.roost-form .invalid-feedback,.roost-form .errorMsg{color:#b42318}
.roost-form .error-summary{border:1px solid #b42318;padding:.5rem 1rem;margin:0 0 1rem}
.roost-form .error-summary a{color:#8a1c13}
.roost-form .help-block{color:#4b5563}
.roost-form .confirm-label{display:block;margin-top:.25rem}
:where(.roost-form) :where(.form-group.row,.form-actions .row){display:grid;gap:.25rem 1rem;margin:0 0 .9rem;
  grid-template-columns:minmax(8rem,12rem) minmax(0,1fr);align-items:start}
:where(.roost-form) :where(.form-group.row)>:nth-child(3){grid-column:2}
:where(.roost-form) :where(.form-control,textarea,select){box-sizing:border-box;width:100%;max-width:32rem;font:inherit;
  padding:.35rem .5rem;border:1px solid #6b7280;border-radius:.25rem;background:#fff;color:#111827}
:where(.roost-form) :where(.form-check){display:flex;gap:.4rem;align-items:center}
:where(.roost-form) :where(.help-block){font-size:.9rem}
:where(.roost-form) :where(.btn){font:inherit;padding:.4rem .9rem;border:1px solid #1d4ed8;border-radius:.25rem;
  background:#1d4ed8;color:#fff;cursor:pointer}
:where(.roost-form) :where(.roost-repeat-item,.roost-group){border:1px solid #d1d5db;border-radius:.25rem;
  padding:.5rem .75rem;margin:0 0 .5rem}
:where(.roost-form) :where(.roost-group-field){margin:0 0 .5rem}
:where(.roost-form) :where(fieldset.roost-rule){border:0;margin:0;padding:0;min-width:0}
:where(.roost-form) :where(.roost-group-label){display:block}
@media (max-width:40rem){:where(.roost-form) :where(.form-group.row,.form-actions .row){grid-template-columns:1fr}
  :where(.roost-form) :where(.form-group.row)>:nth-child(3){grid-column:1}}
/* The wizard's steps (wizard/step-indicator.ts): the current one bold and underlined, never colour alone. */
.roost-steps ol{display:flex;flex-wrap:wrap;gap:.25rem 1.5rem;padding:0 0 0 1.25rem;margin:0 0 1rem}
.roost-steps [aria-current=step]{font-weight:bold;text-decoration:underline}
.roost-repeat-item>legend[draggable=true]{cursor:move}
.roost-sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);
  white-space:nowrap;border:0}
.progress{height:.75rem;background:#e9ecef;border-radius:.25rem;overflow:hidden;margin:.5rem 0}
.progress .bar,.progress .progress-bar{height:100%;width:0;background:#198754;transition:width .2s}
`;

/** A static file of the library: body and content type. */
export interface FormAsset {
  body: string;
  contentType: string;
}

/**
 * The static files the forms need, by short name. Serve them under the urls `htmlHead()` emits.
 *
 * @example
 * app.get('/forms-static/:name', (req, reply) => {
 *   const a = formAssets[req.params.name];
 *   reply.type(a.contentType).send(a.body);
 * });
 */
export const formAssets: Readonly<Record<string, FormAsset>> = {
  'roost-forms.js': { body: script, contentType: 'text/javascript; charset=utf-8' },
  'roost-forms.css': { body: css, contentType: 'text/css; charset=utf-8' },
};
