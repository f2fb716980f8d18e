// OAuth end to end with the in-memory token store.
import { oauthSuite } from '../oauth/e2e-suite.ts';

oauthSuite('memory store', () => ({}));
