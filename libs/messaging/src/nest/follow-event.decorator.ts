import type { EventContract } from '@flowmesh/contracts';
import type { z } from 'zod';

export interface FollowEventOptions<Reset extends string = string, When extends string = string> {
  /**
   * Also hear events that do not match the contract, as `undefined`: for a follower that acts on
   * any event of the subject (a cache drop), whatever a newer or older publisher put in it.
   */
  readonly unparsed?: boolean;
  /**
   * `'since-start'`: read the events from the EVENTS stream instead, from shortly before the
   * application started (events stored meanwhile are heard too), through an ordered consumer of
   * this process; the `replay` follows of one class share their consumers. Events may be missed
   * only when that consumer breaks: then `onReset` is called.
   */
  readonly replay?: 'since-start';
  /** With `replay`: the name of a method of the class called when events may have passed unseen. */
  readonly onReset?: Reset;
  /** The name of a boolean property of the class: followed only if it is true at bootstrap. */
  readonly when?: When;
}

/** One `@FollowEvent` on one method. */
export interface FollowBinding {
  readonly method: string | symbol;
  readonly contract: EventContract;
  readonly unparsed: boolean;
  readonly replay: boolean;
  readonly onReset?: string;
  readonly when?: string;
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
 * With `replay: 'since-start'` the events come from the stream instead, from before the start, and
 * a gap calls `onReset`: for a cache that must not keep a row whose invalidation it missed.
 */
export function FollowEvent<
  Payload extends z.ZodType,
  Reset extends string = never,
  When extends string = never,
>(
  contract: EventContract<Payload>,
  options?: FollowEventOptions<Reset, When> & { readonly unparsed?: false },
): FollowDecorator<z.output<Payload>, NoInfer<Reset>, NoInfer<When>>;
export function FollowEvent<
  Payload extends z.ZodType,
  Reset extends string = never,
  When extends string = never,
>(
  contract: EventContract<Payload>,
  options: FollowEventOptions<Reset, When> & { readonly unparsed: true },
): FollowDecorator<z.output<Payload> | undefined, NoInfer<Reset>, NoInfer<When>>;
export function FollowEvent(
  contract: EventContract,
  options: FollowEventOptions = {},
): (target: object, method: string | symbol) => void {
  if (options.onReset !== undefined && options.replay === undefined) {
    throw new Error(
      `@FollowEvent(${contract.subject}): onReset needs replay (a core subscription has no gaps to tell)`,
    );
  }
  return (target, method) => {
    const owner = target.constructor;
    const binding: FollowBinding = {
      method,
      contract,
      unparsed: options.unparsed ?? false,
      replay: options.replay === 'since-start',
      onReset: options.onReset,
      when: options.when,
    };
    Reflect.defineMetadata(FOLLOWED_EVENTS, [...followBindingsOf(owner), binding], owner);
  };
}

/**
 * A method decorator for a method that takes the event, on a class with the `onReset` method and
 * the `when` property named (checked when compiled).
 */
type FollowDecorator<Event, Reset extends string, When extends string> = (
  target: { readonly [K in Reset]: () => unknown } & { readonly [K in When]: boolean },
  method: string | symbol,
  descriptor: { readonly value?: (event: Event) => unknown },
) => void;

/** The `@FollowEvent` methods of a class. */
export function followBindingsOf(type: object): readonly FollowBinding[] {
  return (Reflect.getMetadata(FOLLOWED_EVENTS, type) as FollowBinding[] | undefined) ?? [];
}
