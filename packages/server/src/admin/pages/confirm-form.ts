import { HTMLForm, type ActionCallback } from '@roost/forms';
import { formBase, type AdminPageRequest } from './admin-routes.js';

export interface AccountConfirmation {
  formid: string;
  /** Where the form posts: the page that asks. */
  url: string;
  /** The account the action is for. */
  accountId: string;
  /** The button that confirms; Cancel comes beside it. */
  action: { id: string; name: string; cssClass: string };
  /** Performs the action; a message it returns refuses it, shown on the form. */
  run(): Promise<string | undefined>;
}

/**
 * The form of a page that asks before acting on one account (remove, reject a sign-up, send a
 * reset mail): a hidden `confirm` names the account, so a form loaded for one account never
 * acts on another; then the action's button and Cancel.
 */
export function accountConfirmForm(page: AdminPageRequest, options: AccountConfirmation): HTMLForm {
  const act: ActionCallback = async function (this: HTMLForm) {
    const [ok, data, errors] = await this.validate(this.getFormValues());
    if (!ok) return [false, await this.render(data, [], errors)];
    const refusal = await options.run();
    if (refusal) return [false, await this.render(data, [refusal], undefined, false, false)];
    return [true, ''];
  };
  const { accountId } = options;
  return new HTMLForm({
    ...formBase(options.formid, page.hidden, options.url),
    request: page.form,
    fields: [
      {
        id: 'confirm',
        datatype: 'string',
        hidden: true,
        required: true,
        default: accountId,
        validator: (v) => (v === accountId ? undefined : 'The form was for another account.'),
      },
    ],
    actions: [
      { id: 'default', method: 'startForm', hidden: true },
      { id: options.action.id, method: act, name: options.action.name, cssClass: options.action.cssClass },
      { id: 'cancel', method: 'cancel', name: 'Cancel', cssClass: 'btn secondary' },
    ],
  });
}
