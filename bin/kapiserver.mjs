#!/usr/bin/env node
// Entry for the `kapiserver` command: runs the TypeScript sources through tsx.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
await import(join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.ts'));
