/**
 * @roost/forms — configuration-driven forms: fields, actions, subsets, validation (zod v4 and any
 * Standard Schema), and accessible server-rendered HTML that works without JavaScript.
 *
 * @example
 * import { HTMLForm } from '@roost/forms';
 * const form = new HTMLForm({ request, fields: [{ id: 'email', name: 'E-mail', datatype: 'email', required: true }] });
 * const { html, response } = await form.process({ success_message: 'Thanks!' });
 */
export type { ActionCallback, ActionConf, ActionKw, ActionResult, Conf, RedirectTarget } from './conf/action-conf.js';
export { ConfigurationError } from './conf/configuration-error.js';
export { fieldDatatype, fieldSize } from './conf/field-conf.js';
export type {
  Datatype,
  FieldConf,
  FieldValidator,
  ListItem,
  ListItemsCallback,
  ValidatorContext,
} from './conf/field-conf.js';
export type { FormApp, Subset, Subsets, TypeConf } from './conf/subset.js';
export { checkboxChoice, radioChoice, selectInput, singleCheckbox } from './fields/choice-widgets.js';
export { fileUpload, formatBytes } from './fields/file-widget.js';
export { displayText, inputAttrs } from './fields/input-attrs.js';
export { checkedPasswordInput, hiddenInput, passwordInput, textArea, textInput } from './fields/text-widgets.js';
export { defaultWidgets, listValue, registerWidget, textValue, WidgetInvalid } from './fields/widget.js';
export type { Widget, WidgetRegistry, WidgetRenderInput, WidgetRequirements } from './fields/widget.js';
export { defaultWidgetName, resolveWidget } from './fields/widgets.js';
export { contentUrls, createContentView } from './content/content-view.js';
export type { ContentViewInit, MessageStore } from './content/content-view.js';
export { defaultContentTable, ensureContentSchema } from './content/content-schema.js';
export type { FormContentDatabase, FormObjectsTable } from './content/content-schema.js';
export { createKyselyContent, KyselyContent } from './content/kysely-content.js';
export type { KyselyContentOptions } from './content/kysely-content.js';
export { ContentError, isContentObject, isContentTool } from './content/model.js';
export type {
  ContentApp,
  ContentData,
  ContentErrorCode,
  ContentObject,
  ContentTool,
  ContentTypeConf,
  ContentView,
  SortPosition,
  ToolConf,
  ToolResult,
  ToolRunContext,
  WorkflowConf,
  WorkflowTransition,
} from './content/model.js';
export { makeCustomizedViewForm, MakeCustomizedViewForm } from './form/customized-view-form.js';
export type { CustomizedViewFormOptions, ViewModuleConf } from './form/customized-view-form.js';
export { FormEvents } from './form/form-events.js';
export type { FormListener } from './form/form-events.js';
export type { DataEventArgs, FieldList, FormData, SubsetData } from './form/form-data.js';
export { defaultFormOptions } from './form/form-options.js';
export type { FormOptions, UploadProgressBar } from './form/form-options.js';
export { Form } from './form/form.js';
export type { CompiledField, ExtractResult, FormInit, FormObject, FormView, ValidateResult } from './form/form.js';
export { HTMLForm } from './form/html-form.js';
export type { FormResponse, ProcessResult } from './form/html-form.js';
export { JsonMappingForm } from './form/json-mapping-form.js';
export type { JsonMappingFormInit } from './form/json-mapping-form.js';
export { JsonSequenceForm } from './form/json-sequence-form.js';
export type { JsonSequenceFormInit } from './form/json-sequence-form.js';
export { ObjectForm } from './form/object-form.js';
export type { ObjectFormInit } from './form/object-form.js';
export { resolveRedirect, urlPlaceholders } from './form/redirect.js';
export { ToolForm } from './form/tool-form.js';
export { WorkflowForm } from './form/workflow-form.js';
export { wizardStateKey, WizardForm } from './wizard/wizard-form.js';
export type { WizardInit, WizardResult, WizardStep } from './wizard/wizard-form.js';
export { sessionWizardStore, WizardStateError, WizardStateExpiredError } from './wizard/wizard-state.js';
export type { KeptWizardState, WizardState, WizardStore } from './wizard/wizard-state.js';
export { stepIndicator } from './wizard/step-indicator.js';
export { formAssets } from './render/assets.js';
export type { FormAsset } from './render/assets.js';
export { defaultClasses, presets } from './render/form-classes.js';
export type { FormClasses, FormPreset } from './render/form-classes.js';
export { hiddenValueInputs } from './render/form-renderer.js';
export { attrs, cls, escapeHtml, textOrHtml } from './render/html.js';
export { defaultStaticUrl, formRequirements, headTags } from './render/html-head.js';
export { actionTemplates, itemTemplates } from './render/templates.js';
export type { ActionsContext, ActionTemplate, FormLayout, ItemContext, ItemTemplate } from './render/templates.js';
export { addValue, isUploadedFile, isXhr, requestValues } from './request/form-request.js';
export type { FormRequest, FormValue, FormValues, UploadedFile, ValueSource } from './request/form-request.js';
export { memoryUploadStash, type UploadStash } from './request/upload-stash.js';
export { formRequestFromWeb } from './request/from-web-request.js';
export { datatypes, parseDate, parseDateTime, parseTime } from './validate/datatypes.js';
export { compileField, isEmptyValue } from './validate/field-adapter.js';
export type { FieldNode, ParseContext, ParseResult } from './validate/field-adapter.js';
export { catalogDe, catalogEn, createTranslator, interpolate } from './validate/messages.js';
export type { Catalog, Translate } from './validate/messages.js';
export { isStandardSchema, runStandardSchema } from './validate/standard-schema.js';
export type { StandardSchemaV1 } from './validate/standard-schema.js';
export { ValidationError } from './validate/validation-error.js';
export type { FieldError } from './validate/validation-error.js';
export { fieldsFromJsonSchema, formJsonSchema } from './schema/json-schema.js';
export type { JsonSchema, JsonSchemaOptions } from './schema/json-schema.js';
export type { FieldRule, RuleEffect } from './rules/rules.js';
export { browserSafe } from './live/browser-safe.js';
export type { BrowserSafeMark } from './live/browser-safe.js';
