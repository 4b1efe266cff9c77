export { createKeyService, newKeyInput, type KeyService, type KeyView, type NewKeyInput } from './key-service.js';
export { createKeyRepo } from './key-repo.js';
export { isKeyRevoked } from './key-events.js';
