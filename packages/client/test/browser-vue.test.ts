import { describeBindingsPage } from './helpers/bindings-page.js';

/** `@roost/client/vue` in chromium: every composable, against a real Roost. */
describeBindingsPage('Vue', new URL('./pages/vue-app.ts', import.meta.url));
