import type { TestProject } from 'vitest/node';
import type { AddressBook } from '../../src/config/address-book.ts';
import { startDevnet } from '../../src/devnet/devnet.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    devnet: AddressBook;
  }
}

export default async function setup(project: TestProject) {
  const devnet = await startDevnet();
  project.provide('devnet', devnet.addressBook);
  return () => devnet.stop();
}
