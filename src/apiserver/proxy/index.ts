// Forwarding of /api and /apis to the orchestrator: plain and streaming requests (forward.ts; those that need nothing
// but forwarding go straight through, pass-through.ts), upgrades for exec, attach and port-forward (upgrade.ts), header
// hygiene shared by all (headers.ts).
export { FORWARDED_ROUTES, registerProxy } from './forward.ts';
export { forwardHeaders, responseHeaders } from './headers.ts';
export { upgradeHandler } from './upgrade.ts';
