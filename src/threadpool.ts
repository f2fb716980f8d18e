// Sizes libuv's thread pool for this machine before anything starts it: bcrypt compares (logins, Basic
// authentication) run there, next to file I/O and DNS, and Node's default of 4 threads leaves cores idle during a
// login storm on larger machines. An explicit UV_THREADPOOL_SIZE wins. Imported first by the entry (main.ts), since
// the pool reads the variable once, when its first task arrives.
import { availableParallelism } from 'node:os';

process.env.UV_THREADPOOL_SIZE ||= String(Math.max(4, availableParallelism()));
