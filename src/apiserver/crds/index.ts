export * from './definitions.ts';
export { installCrds } from './install.ts';
