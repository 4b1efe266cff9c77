import { attrs, cls, escapeHtml } from '../render/html.js';
import type { Translate } from '../validate/messages.js';

/**
 * The wizard's steps as an ordered list in a labelled `<nav>`, the current one marked with
 * `aria-current="step"` (WAI's multi-page form pattern); steps done say so to screen readers too.
 * With `goto` (the request name that goes to a step), the nav also carries the step's index and
 * that name for the script's history of steps (wizard/wizard-script.ts).
 *
 * @example
 * stepIndicator(['Account', 'Profile'], 1, t);
 * // '<nav class="roost-steps" aria-label="Steps"><ol><li class="done">Account<span …> (done)</span></li>…'
 */
export function stepIndicator(names: readonly string[], current: number, t: Translate, goto?: string): string {
  const items = names.map((name, i) => {
    const done = i < current ? `<span class="roost-sr-only"> (${escapeHtml(t('done'))})</span>` : '';
    const li = attrs({
      class: cls(i < current && 'done', i === current && 'current') || undefined,
      'aria-current': i === current ? 'step' : undefined,
    });
    return `<li${li}>${escapeHtml(t(name))}${done}</li>`;
  });
  const nav = attrs({
    class: 'roost-steps',
    'aria-label': t('Steps'),
    'data-roost-step': goto === undefined ? undefined : String(current),
    'data-roost-goto': goto,
  });
  return `<nav${nav}><ol>${items.join('')}</ol></nav>`;
}
