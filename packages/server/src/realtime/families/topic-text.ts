import { commonErrors } from '../../core/errors.js';

/** Store names as the stores take them (datastore/ and filestore/ names: letters, digits, `_-`). */
export const STORE_NAME = /^[A-Za-z0-9_-]{1,63}$/;

/** The refusal of a topic's text, naming it: a `validation_failure` on the field `topic`. */
export const invalidTopic = (topic: string, why: string) =>
  commonErrors.validation_failure({
    message: `The topic "${topic.slice(0, 100)}" ${why}.`,
    fields: [['topic', `The topic ${why}.`]],
  });
