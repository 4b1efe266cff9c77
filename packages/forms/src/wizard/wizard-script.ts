/* The browser side of a wizard over ajax (wizard-form.ts with `use_ajax`), part of the form script
   (render/assets.ts joins it in, where `send` is defined). Full pages get an entry in
   the browser's history each; steps changed in place would get none, and the browser's Back would
   leave the form. So each step shown gets an entry of its own, its index in `history.state` (the
   address stays: the answers live in the page, a step cannot be loaded by its address), and Back
   or Forward sends the form with `goto$` (wizard-form.ts `gotoStep`) to show that entry's step. */

/**
 * Script text defining `recordStep(container, push)` and the `popstate` listener.
 *
 * @example
 * const script = `(function () { function send(form, pressed, restoring) { … } ${wizardScript} })();`;
 */
export const wizardScript = `  // The step a wizard's container shows (wizard/step-indicator.ts), null for another form.
  function shownStep(container) {
    var nav = container && container.querySelector('nav[data-roost-step]');
    if (!nav) return null;
    return { index: Number(nav.getAttribute('data-roost-step')), goto: nav.getAttribute('data-roost-goto') };
  }
  // Keeps the step a wizard shows in history.state.roostSteps (by its container's id, so several
  // wizards on a page keep theirs): a new entry when \`push\` and the step changed, else this entry.
  function recordStep(container, push) {
    var shown = shownStep(container);
    if (!shown || !container.id) return;
    var steps = Object.assign({}, history.state && history.state.roostSteps);
    if (push && steps[container.id] === shown.index) return;
    steps[container.id] = shown.index;
    var state = Object.assign({}, history.state, { roostSteps: steps });
    if (push) history.pushState(state, ''); else history.replaceState(state, '');
  }
  window.addEventListener('popstate', function (ev) {
    var steps = (ev.state && ev.state.roostSteps) || {};
    Object.keys(steps).forEach(function (id) {
      var container = document.getElementById(id);
      var shown = shownStep(container);
      var form = container && container.querySelector('form[data-ajax="true"]');
      if (shown && form && shown.goto && shown.index !== steps[id]) send(form, [shown.goto, String(steps[id])], true);
    });
  });
`;
