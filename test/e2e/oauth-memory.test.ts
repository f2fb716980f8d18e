// OAuth end to end with the in-memory token store.
import { oauthSuite } from '../apiserver/oauth/e2e-suite.ts';

oauthSuite('memory store', () => ({}));
