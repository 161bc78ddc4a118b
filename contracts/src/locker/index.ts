export * from './locker.contract.js';
