/* ToolForm: the parameters of a tool as a form; `run` validates them and runs the tool. */
import type { ActionConf, ActionKw, ActionResult } from '../conf/action-conf.js';
import { ConfigurationError } from '../conf/configuration-error.js';
import type { FieldConf } from '../conf/field-conf.js';
import type { TypeConf } from '../conf/subset.js';
import { isContentTool, type ToolResult } from '../content/model.js';
import { escapeHtml } from '../render/html.js';
import type { FormInit } from './form.js';
import { HTMLForm } from './html-form.js';

/**
 * A form for running a tool. The context is the tool (`content.tool(id, target?)`); its definition
 * supplies fields (the tool's parameters, no meta fields), subsets and actions.
 *
 * @example
 * const form = new ToolForm({ view, context: content.tool('export', folder) });
 * const { result, html } = await form.process(); // after `run$`: true and the tool's output
 */
export class ToolForm extends HTMLForm {
  static override defaultActions: readonly ActionConf[] = [
    { id: 'default', method: 'startForm', name: 'Initialize', hidden: true },
    { id: 'run', method: 'runTool', name: 'Start', cssClass: 'btn btn-primary' },
  ];
  static override defaultSubsets = {};

  constructor(init: FormInit = {}) {
    super(init);
    if (!this.loadFromType && isContentTool(this.context)) this.loadFromType = this.context.configuration;
  }

  /** Tool ids are looked up among the app's tools. */
  protected override lookupTypeConf(id: string): TypeConf | undefined {
    return this.app?.getToolConf?.(id);
  }

  /** A tool's form shows its parameters only. */
  protected override defaultFieldSource(config: TypeConf | undefined): FieldConf[] {
    return [...(config?.data ?? [])];
  }

  /** A tool may have no parameters: its form is the run button alone. */
  protected override fieldsOptional(): boolean {
    return true;
  }

  /** Unlike other forms, an unknown action id in a subset is an error. */
  protected override resolveActionId(id: string, known: readonly ActionConf[]): ActionConf[] {
    const found = super.resolveActionId(id, known);
    if (found.length === 0) throw new ConfigurationError(`Unknown action (${id})`);
    return found;
  }

  /**
   * Validates the parameters and runs the tool with them (the tool's fixed `values` win). On
   * success the result is true and the html is the tool's output; on failure the form is shown
   * again with the submitted data, followed by the output. Never redirects.
   *
   * @example
   * const [ok, output] = await form.runTool(action);
   */
  async runTool(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    const [ok, data, errors] = await this.validate(this.getFormValues());
    if (!ok) return [false, await this.render(data, [], errors)];
    const tool = this.context;
    if (!isContentTool(tool)) return [false, await this.render(data, ['Tool not found'], undefined, false, false)];
    const r = await tool.run(data, { user: this.actionUser(kw), view: this.view, request: this.request });
    const output = toolOutput(r);
    if (r.ok) return [true, output];
    return [false, (await this.render(data, undefined, undefined, false, false)) + output];
  }
}

/** The tool's output as html: trusted markup as is, text escaped in a `<pre>`. */
function toolOutput(r: ToolResult): string {
  return r.html ? r.output : `<pre class="tool-output">${escapeHtml(r.output)}</pre>`;
}
