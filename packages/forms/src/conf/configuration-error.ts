/**
 * Thrown for programming or configuration mistakes: an unknown subset, a field id that cannot be
 * resolved, no action to process the form.
 *
 * @example
 * try { await form.setup('nope'); } catch (e) { if (e instanceof ConfigurationError) console.error(e.message); }
 */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}
