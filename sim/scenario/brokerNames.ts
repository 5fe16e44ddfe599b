import { ValidationError, expectArray, expectString, join } from '../core/validate';

/**
 * Names a scenario gives its brokers (`"cluster": {"brokerNames": ["london", "paris", "tokyo"]}`): broker ids stay
 * 1..n (Kafka's node.id), the names are what the story and the screen call them. Kafka has no such setting; it is a
 * teaching aid, like a rack label on a diagram.
 */

/** Letters, digits, spaces, '.', '_' and '-', starting with a letter or digit; short enough for a card. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,23}$/;
/** A name that reads as another node's id would mislead ("broker 2" naming broker 3). */
const NODE_LIKE = /^(broker|controller)[- ]?\d+$/i;

export function readBrokerNames(v: unknown, brokers: number, path = 'cluster.brokerNames'): readonly string[] | null {
  if (v === undefined) return null;
  const names = expectArray(v, path).map((n, i) => expectString(n, join(path, i)));
  if (names.length !== brokers) throw new ValidationError(path, v, `one name per broker, in broker id order (${brokers} name${brokers === 1 ? '' : 's'} for cluster.brokers = ${brokers})`);
  const seen = new Set<string>();
  names.forEach((n, i) => {
    if (!NAME.test(n)) throw new ValidationError(join(path, i), n, "a name of 1–24 letters, digits, spaces, '.', '_' or '-', starting with a letter or digit");
    if (NODE_LIKE.test(n)) throw new ValidationError(join(path, i), n, 'a name that is not a node id such as "broker 2" (broker ids are 1..n; the name is what the story calls it)');
    if (seen.has(n.toLowerCase())) throw new ValidationError(join(path, i), n, 'a name no other broker has');
    seen.add(n.toLowerCase());
  });
  return names;
}
