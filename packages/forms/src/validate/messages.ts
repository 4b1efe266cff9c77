/**
 * Translates a message id, filling `${name}` placeholders from the mapping.
 *
 * @example
 * const t: Translate = createTranslator('de'); t('Longer than maximum length ${max}', { max: 5 });
 */
export type Translate = (msgid: string, mapping?: Readonly<Record<string, unknown>>) => string;

/** Message id to translated text. */
export type Catalog = Readonly<Record<string, string>>;

/**
 * The German catalog of every message and label the library emits.
 *
 * @example
 * createTranslator('de')('Required'); // 'Pflichtfeld'
 */
export const catalogDe: Catalog = {
  Required: 'Pflichtfeld',
  'Longer than maximum length ${max}': 'Länger als die maximale Länge von ${max}',
  'Shorter than minimum length ${min}': 'Kürzer als die minimale Länge von ${min}',
  'Does not match the required format': 'Entspricht nicht dem verlangten Format',
  'Less than the minimum ${min}': 'Kleiner als das Minimum ${min}',
  'More than the maximum ${max}': 'Größer als das Maximum ${max}',
  'Not a multiple of ${step}': 'Kein Vielfaches von ${step}',
  'Earlier than ${min}': 'Früher als ${min}',
  'Later than ${max}': 'Später als ${max}',
  'At least ${min} items': 'Mindestens ${min} Einträge',
  'At most ${max} items': 'Höchstens ${max} Einträge',
  Add: 'Hinzufügen',
  Remove: 'Entfernen',
  'Move up': 'Nach oben',
  Next: 'Weiter',
  Back: 'Zurück',
  Finish: 'Abschließen',
  Steps: 'Schritte',
  done: 'erledigt',
  'Please check this step again': 'Bitte prüfen Sie diesen Schritt noch einmal',
  'The saved steps of this form could not be used; please start again.':
    'Die gespeicherten Schritte dieses Formulars waren nicht verwendbar; bitte beginnen Sie von vorn.',
  'This form was left unused too long; please start again.':
    'Dieses Formular blieb zu lange unbenutzt; bitte beginnen Sie von vorn.',
  'Move down': 'Nach unten',
  '${item} moved to position ${position} of ${count}': '${item} an Position ${position} von ${count} verschoben',
  'Invalid email address': 'Ungültige E-Mail-Adresse',
  'Invalid url': 'Ungültige URL',
  '"${val}" is not a number': '"${val}" ist keine Zahl',
  "'${value}' not in reference list": "'${value}' ist nicht in der Auswahlliste",
  'Only one value allowed': 'Nur ein Wert erlaubt',
  'Invalid date': 'Ungültiges Datum',
  'Invalid time': 'Ungültige Uhrzeit',
  'Invalid date and time': 'Ungültiges Datum mit Uhrzeit',
  'Invalid boolean': 'Ungültiger Wahrheitswert',
  'Json format error': 'JSON-Formatfehler',
  'Password did not match confirm': 'Das Passwort stimmt nicht mit der Bestätigung überein',
  'Invalid file': 'Ungültige Datei',
  'File larger than ${max} bytes': 'Datei größer als ${max} Bytes',
  'Invalid value': 'Ungültiger Wert',
  'There was a problem with your submission': 'Bei Ihrer Eingabe ist ein Problem aufgetreten',
  'Errors have been highlighted below': 'Die Fehler sind unten markiert',
  'OK. Data saved.': 'OK. Daten gespeichert.',
  'Item deleted!': 'Eintrag gelöscht!',
  'Item exists!': 'Eintrag existiert bereits!',
  'Object not found': 'Objekt nicht gefunden',
  'Unknown object type': 'Unbekannter Objekttyp',
  'Object type not allowed.': 'Objekttyp nicht erlaubt.',
  'Invalid position': 'Ungültige Position',
  'Item not found': 'Eintrag nicht gefunden',
  'Workflow action not allowed': 'Workflow-Aktion nicht erlaubt',
  'No workflow action given': 'Keine Workflow-Aktion angegeben',
  'The stored data could not be read and will be replaced.':
    'Die gespeicherten Daten konnten nicht gelesen werden und werden ersetzt.',
  'Tool not found': 'Werkzeug nicht gefunden',
  Items: 'Einträge',
  Edit: 'Bearbeiten',
  Delete: 'Löschen',
  Start: 'Starten',
  Continue: 'Weiter',
  Message: 'Nachricht',
  Save: 'Speichern',
  Cancel: 'Abbrechen',
  Create: 'Erstellen',
  Initialize: 'Initialisieren',
  Yes: 'Ja',
  No: 'Nein',
  Password: 'Passwort',
  'Confirm Password': 'Passwort bestätigen',
  'Current file': 'Aktuelle Datei',
  'Kept file': 'Behaltene Datei',
  'Upload progress': 'Upload-Fortschritt',
};

/**
 * English is the message ids themselves.
 *
 * @example
 * createTranslator('en')('Required'); // 'Required'
 */
export const catalogEn: Catalog = {};

const builtIn: Readonly<Record<string, Catalog>> = { en: catalogEn, de: catalogDe };

/**
 * Fills `${name}` placeholders.
 *
 * @example
 * interpolate('Longer than maximum length ${max}', { max: 5 }); // 'Longer than maximum length 5'
 */
export function interpolate(text: string, mapping: Readonly<Record<string, unknown>> = {}): string {
  return text.replace(/\$\{(\w+)\}/g, (whole, key: string) => (key in mapping ? String(mapping[key]) : whole));
}

/**
 * A translator for a locale (`en`, `de`, or a region such as `de-AT`), with extra catalogs that
 * add or override texts (e.g. labels of your fields, or a new language).
 *
 * @example
 * const t = createTranslator('de', { de: { Title: 'Titel' } }); t('Required'); // 'Pflichtfeld'
 */
export function createTranslator(locale = 'en', extra: Readonly<Record<string, Catalog>> = {}): Translate {
  const lang = locale.toLowerCase().split(/[-_]/)[0] ?? 'en';
  const catalogs = [extra[locale], extra[lang], builtIn[locale], builtIn[lang]].filter(
    (c): c is Catalog => c !== undefined,
  );
  return (msgid, mapping) => {
    for (const c of catalogs) {
      const hit = c[msgid];
      if (hit !== undefined) return interpolate(hit, mapping);
    }
    return interpolate(msgid, mapping);
  };
}
