/* Shared configurations modelled on the original's test app (type1 / type2). */
import type { ContentTypeConf, FieldConf, FormApp, ToolConf, TypeConf } from '../../src/index.js';

const type1Fields: FieldConf[] = [
  { id: 'ftext', datatype: 'text', size: 1000, name: 'ftext' },
  { id: 'fnumber', datatype: 'number', required: true, name: 'fnumber' },
  { id: 'fdate', datatype: 'datetime', name: 'fdate' },
  { id: 'ftime', datatype: 'time', name: 'ftime' },
  {
    id: 'flist',
    datatype: 'list',
    name: 'flist',
    listItems: [
      { id: 'item 1', name: 'Item 1' },
      { id: 'item 2', name: 'Item 2' },
      { id: 'item 3', name: 'Item 3' },
    ],
  },
  { id: 'fmselect', datatype: 'multilist', name: 'fmselect' },
  { id: 'fjson', datatype: 'json', name: 'fjson' },
];

export const type1: TypeConf = {
  id: 'type1',
  name: 'Type 1',
  data: type1Fields,
  forms: { partial: { fields: ['ftext', 'fnumber'] } },
};

const type2: TypeConf = {
  id: 'type2',
  data: [
    { id: 'fstr', datatype: 'string', size: 100 },
    { id: 'ftext', datatype: 'text' },
  ],
};

const metaFields: FieldConf[] = [
  { id: 'title', datatype: 'string', size: 255, name: 'Title' },
  { id: 'pool_type', datatype: 'string', readonly: true },
  { id: 'pool_create', datatype: 'datetime', readonly: true },
];

export const app: FormApp = {
  getObjectConf: (id) => ({ type1, type2 })[id],
  metaFields,
};

export const fullData = {
  ftext: 'Some text',
  fnumber: '123456',
  fdate: '2008-06-23 16:55:20',
  ftime: '16:55',
  flist: 'item 2',
  fmselect: ['a', 'b'],
  fjson: '{"a": [1, 2]}',
  pool_type: 'type1',
};

/* The content model's configuration for the acceptance tests: type1 objects inside folders
   (pages), a workflow, and two tools. */

const folderType: ContentTypeConf = {
  id: 'folder',
  name: 'Folder',
  page: true,
  data: [{ id: 'comment', datatype: 'text', name: 'Comment' }],
};

const contentType1: ContentTypeConf = {
  ...type1,
  subtypes: ['type2'],
  workflow: {
    initial: 'draft',
    transitions: [
      { id: 'publish', from: ['draft'], to: 'published', name: 'Publish' },
      { id: 'retract', action: 'unpublish', from: ['published'], to: 'draft' },
      { id: 'archive', from: '*', to: 'archived' },
    ],
  },
};

const contentType2: ContentTypeConf = { ...type2 };

const countTool: ToolConf = {
  id: 'count',
  name: 'Count children',
  data: [
    { id: 'parameter1', datatype: 'string', name: 'Prefix', required: true },
    { id: 'parameter2', datatype: 'number', name: 'Limit' },
  ],
  async run(values, ctx) {
    const children = ctx.target ? await ctx.target.children() : [];
    if (values.parameter1 === 'fail') return { ok: false, output: 'Failed <on purpose>' };
    return { ok: true, output: `${String(values.parameter1)}: ${children.length} children` };
  },
};

export const contentOptions = {
  types: [folderType, contentType1, contentType2],
  tools: [countTool],
  metaFields,
};
