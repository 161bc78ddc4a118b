import type { EventContract } from '@flowmesh/contracts';
import type { z } from 'zod';

export interface FollowEventOptions {
  /**
   * Also hear events that do not match the contract, as `undefined`: for a follower that acts on
   * any event of the subject (a cache drop), whatever a newer or older publisher put in it.
   */
  readonly unparsed?: boolean;
}

/** One `@FollowEvent` on one method. */
export interface FollowBinding {
  readonly method: string | symbol;
  readonly contract: EventContract;
  readonly unparsed: boolean;
}

const FOLLOWED_EVENTS = Symbol('flowmesh.followed-events');

/**
 * Every replica follows this event: the method hears each event of `contract` as it is published,
 * in every process of the service (a core subscription without a queue group; nothing is stored
 * for it, nothing is redelivered), validated by the contract (events that do not match are not
 * heard unless `unparsed`). For work that only goes faster or fresher for hearing it (a cancel,
 * a cache drop) while the durable fact lives elsewhere; a fact one replica must handle once is
 * `@HandleEvent`, and both may sit on one method. The method may be on any provider or
 * controller; `MessagingModule` subscribes at application bootstrap and unsubscribes at shutdown.
 */
export function FollowEvent<Payload extends z.ZodType>(
  contract: EventContract<Payload>,
  options?: FollowEventOptions & { readonly unparsed?: false },
): FollowDecorator<z.output<Payload>>;
export function FollowEvent<Payload extends z.ZodType>(
  contract: EventContract<Payload>,
  options: FollowEventOptions & { readonly unparsed: true },
): FollowDecorator<z.output<Payload> | undefined>;
export function FollowEvent(
  contract: EventContract,
  options: FollowEventOptions = {},
): (target: object, method: string | symbol) => void {
  return (target, method) => {
    const owner = target.constructor;
    const binding: FollowBinding = { method, contract, unparsed: options.unparsed ?? false };
    Reflect.defineMetadata(FOLLOWED_EVENTS, [...followBindingsOf(owner), binding], owner);
  };
}

/** A method decorator for a method that takes the event (checked when compiled). */
type FollowDecorator<Event> = (
  target: object,
  method: string | symbol,
  descriptor: TypedPropertyDescriptor<(event: Event) => unknown>,
) => void;

/** The `@FollowEvent` methods of a class. */
export function followBindingsOf(type: object): readonly FollowBinding[] {
  return (Reflect.getMetadata(FOLLOWED_EVENTS, type) as FollowBinding[] | undefined) ?? [];
}
