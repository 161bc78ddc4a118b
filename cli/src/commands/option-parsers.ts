import { InvalidArgumentError } from 'commander';

export function parsePositiveInt(value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError('must be a positive whole number');
  return Number(value);
}
