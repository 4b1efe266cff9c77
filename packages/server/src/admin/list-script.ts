/**
 * The admin lists' script (page-kit/list-table.ts), served as /static/roost-lists.js
 * (admin/index.ts): what the bulk delete gains with JavaScript. A "select all" box in the
 * checkbox column's header, the count of checked rows on the delete button, and the button
 * disabled while none is checked. Without it the lists work the same by their forms. Events are
 * delegated and the boxes found again after a live region is replaced (admin/live-script.ts).
 */
export const LIST_SCRIPT = `(() => {
  // The form's id by its attribute: \`form.id\` is the row boxes' \`id\` control (they belong to the form).
  const idOf = (form) => form.getAttribute('id');
  const boxesOf = (form) =>
    [...document.querySelectorAll('input[type=checkbox][name=id][form="' + CSS.escape(idOf(form)) + '"]')];
  const update = (form) => {
    const boxes = boxesOf(form);
    const checked = boxes.filter((b) => b.checked).length;
    const button = form.querySelector('button[type=submit]');
    if (!button) return;
    if (!button.dataset.label) button.dataset.label = button.textContent;
    const text = checked ? button.dataset.label.replace(/…$/, '') + ' (' + checked + ')…' : button.dataset.label;
    if (button.textContent !== text) button.textContent = text;
    button.disabled = checked === 0;
    const all = document.querySelector('input[data-select-all="' + CSS.escape(idOf(form)) + '"]');
    if (all) {
      all.checked = checked > 0 && checked === boxes.length;
      all.indeterminate = checked > 0 && checked < boxes.length;
    }
  };
  const setup = () => {
    for (const form of document.querySelectorAll('form.bulk[id]')) {
      const cell = boxesOf(form)[0]?.closest('table')?.querySelector('thead th');
      if (cell && !cell.querySelector('[data-select-all]')) {
        const all = document.createElement('input');
        all.type = 'checkbox';
        all.dataset.selectAll = idOf(form);
        all.setAttribute('aria-label', 'Select all rows of this page');
        cell.append(all);
      }
      update(form);
    }
  };
  document.addEventListener('change', (event) => {
    const input = event.target;
    if (!(input instanceof HTMLInputElement)) return;
    const form = document.getElementById(input.dataset.selectAll || input.getAttribute('form') || '');
    if (!form || !form.classList.contains('bulk')) return;
    if (input.dataset.selectAll) for (const box of boxesOf(form)) box.checked = input.checked;
    update(form);
  });
  setup();
  new MutationObserver(setup).observe(document.body, { childList: true, subtree: true });
})();
`;
