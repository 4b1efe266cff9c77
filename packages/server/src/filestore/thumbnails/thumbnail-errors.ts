import { defineErrors } from '../../core/errors.js';

/** Codes of thumbnails (docs/errors.md, "Thumbnails"; docs/filestore.md, "Thumbnails"). */
export const thumbnailErrors = defineErrors({
  thumb_not_allowed: { kind: 'invalid', message: 'This store does not serve thumbnails of that size.' },
  not_an_image: { kind: 'invalid', message: 'The file is not an image this store makes thumbnails of.' },
  image_too_large: {
    kind: 'too_large',
    message: 'The image has more pixels or bytes than this store makes thumbnails of.',
  },
  image_too_slow: { kind: 'unavailable', message: 'The thumbnail took too long to make.' },
});
