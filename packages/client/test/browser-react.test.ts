import { describeBindingsPage } from './helpers/bindings-page.js';

/** `@roost/client/react` in chromium: every hook, against a real Roost. */
describeBindingsPage('React', new URL('./pages/react-app.ts', import.meta.url));
