import { ToolForm, type ContentData, type ToolConf, type ToolResult, type ToolRunContext } from '@roost/forms';
import { isRoostError } from '../../core/errors.js';
import { formBase, type AdminPageRequest } from './admin-routes.js';

/**
 * A page's form that runs one tool (`configuration.run`) on its button: the webhooks' and the
 * API keys' "add" forms (webhooks-pages.ts, keys-pages.ts).
 */
export function toolPageForm(
  page: AdminPageRequest,
  options: { formid: string; url: string; configuration: ToolConf; action: { id: string; name: string } },
): ToolForm {
  const { configuration } = options;
  return new ToolForm({
    ...formBase(options.formid, page.hidden, options.url),
    request: page.form,
    context: {
      configuration,
      target: undefined,
      run: async (values: Readonly<ContentData>, ctx: Omit<ToolRunContext, 'target'>) =>
        configuration.run(values, { ...ctx, target: undefined }),
    },
    actions: [
      { id: 'default', method: 'startForm', hidden: true },
      { id: options.action.id, method: 'runTool', name: options.action.name, cssClass: 'btn btn-primary' },
    ],
  });
}

/** A service's refusal as a tool's failed result (its sentence and field reasons); anything else is thrown. */
export function toolRefusal(err: unknown): ToolResult {
  if (!isRoostError(err)) throw err;
  const reasons = err.fields.map(([field, reason]) => `${field}: ${reason}`);
  return { ok: false, output: (reasons.length > 0 ? reasons : [err.message]).join('; ') };
}
