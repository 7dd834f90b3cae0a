// @ts-check
// A hung page or DevTools session must fail the bench with a reason, not stall it for ever.

/** `promise`, or a rejection with `message` when it has not settled within `ms`. */
export function withDeadline(promise, ms, message) {
  let timer;
  const expired = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
