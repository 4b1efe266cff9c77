/* Shared configurations modelled on the original's test app (type1 / type2). */
import type { FieldConf, FormApp, TypeConf } from '../../src/index.js';

export const type1Fields: FieldConf[] = [
  { id: 'ftext', datatype: 'text', size: 1000, name: 'ftext' },
  { id: 'fnumber', datatype: 'number', required: true, name: 'fnumber' },
  { id: 'fdate', datatype: 'datetime', name: 'fdate' },
  { id: 'ftime', datatype: 'time', name: 'ftime' },
  { id: 'flist', datatype: 'list', name: 'flist', listItems: [{ id: 'item 1', name: 'Item 1' }, { id: 'item 2', name: 'Item 2' }, { id: 'item 3', name: 'Item 3' }] },
  { id: 'fmselect', datatype: 'multilist', name: 'fmselect' },
  { id: 'fjson', datatype: 'json', name: 'fjson' },
];

export const type1: TypeConf = {
  id: 'type1',
  name: 'Type 1',
  data: type1Fields,
  forms: { partial: { fields: ['ftext', 'fnumber'] } },
};

export const type2: TypeConf = {
  id: 'type2',
  data: [
    { id: 'fstr', datatype: 'string', size: 100 },
    { id: 'ftext', datatype: 'text' },
  ],
};

export const metaFields: FieldConf[] = [
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
