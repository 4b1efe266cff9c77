/* Reading the one JSON field the JSON forms store their data in. The field may hold a value or
   JSON text (older data); anything unreadable is reported, not thrown. */
import type { ActionConf } from '../conf/action-conf.js';
import type { FormObject } from './form.js';

/** The actions of both JSON forms: show the stored data, save. */
export const jsonFormActions: readonly ActionConf[] = [
  { id: 'default', method: 'startObject', name: 'Initialize', hidden: true },
  { id: 'edit', method: 'updateObj', name: 'Save', cssClass: 'btn btn-primary' },
];

/** A plain dictionary (not an array, not null). */
export function isDict(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value of `field` in the object's data, JSON text parsed; `readable` is false for text that is not JSON. */
export function readJsonField(context: unknown, field: string): { value: unknown; readable: boolean } {
  // Like loadObjData: the object's data first, then its meta (where a store keeps meta field ids).
  const obj = isDict(context) ? (context as FormObject) : undefined;
  const raw = obj?.data && field in obj.data ? obj.data[field] : obj?.meta?.[field];
  if (typeof raw !== 'string') return { value: raw, readable: true };
  if (raw.trim() === '') return { value: undefined, readable: true };
  try {
    return { value: JSON.parse(raw) as unknown, readable: true };
  } catch {
    return { value: undefined, readable: false };
  }
}

/** Message shown when the stored value is not what the form stores; saving replaces it. */
export const msgUnreadable = 'The stored data could not be read and will be replaced.';
