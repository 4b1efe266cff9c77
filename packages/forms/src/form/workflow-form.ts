/* WorkflowForm: asks for a workflow action (and a message) and runs the transition on the context. */
import type { ActionConf, ActionKw, ActionResult } from '../conf/action-conf.js';
import type { FieldConf } from '../conf/field-conf.js';
import { isContentObject } from '../content/model.js';
import type { FieldError } from '../validate/validation-error.js';
import { msgObjectNotFound, msgSaved } from './content-messages.js';
import type { FormInit } from './form.js';
import { HTMLForm } from './html-form.js';

/**
 * Runs a workflow transition of the context object. The transition comes from the form: the
 * hidden `transition` field (a transition id) or `action` (the first transition of that action
 * allowed from the current state). A link such as `?action=publish` prefills the form.
 *
 * @example
 * const form = new WorkflowForm({ view, context: obj, request });
 * const { result, response } = await form.process({ redirectSuccess: 'obj_url' }); // after `submit$`: the object
 */
export class WorkflowForm extends HTMLForm {
  static override defaultActions: readonly ActionConf[] = [
    { id: 'default', method: 'startRequestGET', name: 'Initialize', hidden: true },
    { id: 'submit', method: 'callWf', name: 'Continue', cssClass: 'btn btn-primary' },
    { id: 'cancel', method: 'cancel', name: 'Cancel', cssClass: 'btn btn-warning' },
  ];
  static override defaultSubsets = {};
  /** The fields when the form is given none. */
  static workflowFields: readonly FieldConf[] = [
    { id: 'action', datatype: 'string', size: 50, hidden: true },
    { id: 'transition', datatype: 'string', size: 50, hidden: true },
    { id: 'message', datatype: 'text', size: 1000, name: 'Message' },
  ];

  constructor(init: FormInit = {}) {
    super(init);
    if (this.fields.length === 0 && !this.loadFromType) this.fields = [...WorkflowForm.workflowFields];
  }

  /** One of `action` and `transition` is needed. */
  protected override async validateForm(data: Readonly<Record<string, unknown>>): Promise<FieldError[]> {
    return data.action || data.transition ? [] : [{ field: '', messages: [this.t('No workflow action given')] }];
  }

  /**
   * Validates and runs the transition (`transition`, else `action` from the form data) for the
   * user; fires `success(obj)`. The result is the object, or false when no transition applies.
   *
   * @example
   * const [obj] = await form.callWf(action, { redirectSuccess: 'obj_url' });
   */
  async callWf(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    const [ok, data, errors] = await this.validate(this.getFormValues());
    if (!ok) return this.finishFormProcessing(false, data, [], errors, kw);
    const obj = this.context;
    if (!isContentObject(obj)) return this.finishFormProcessing(false, data, [msgObjectNotFound], undefined, kw);
    const transition = typeof data.transition === 'string' && data.transition ? data.transition : undefined;
    const done = await obj.wfAction(
      typeof data.action === 'string' ? data.action : '',
      this.actionUser(kw),
      transition,
    );
    if (!done) return this.finishFormProcessing(false, data, ['Workflow action not allowed'], undefined, kw);
    await this.signal('success', { obj });
    return this.finishFormProcessing(obj, data, [kw.success_message ?? msgSaved], undefined, kw);
  }
}
