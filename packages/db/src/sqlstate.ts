/**
 * The one reader of PostgreSQL error codes (SQLSTATE, the `code` of an error
 * node-postgres raises for the server). Callers ask what kind of failure an
 * error is with these predicates and never compare codes themselves, so the
 * classes the api answers 400 or 503 for and the failures the api and the
 * worker retry are spelt in one place.
 */

/** The SQLSTATE of `error` (five digits or capitals), or undefined when it carries none. */
export const sqlState = (error: unknown): string | undefined => {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
};

/** Class 22, data exception: a value the column cannot hold (bad text representation, out of range). */
export const isDataException = (error: unknown): boolean => sqlState(error)?.startsWith("22") ?? false;

/** 23505, unique_violation. */
export const isUniqueViolation = (error: unknown): boolean => sqlState(error) === "23505";

/** The unique constraint (or index) a failed statement violated, when that was its failure. */
export const violatedUniqueConstraint = (error: unknown): string | undefined => {
  if (!isUniqueViolation(error)) return undefined;
  const constraint = (error as { constraint?: unknown }).constraint;
  return typeof constraint === "string" ? constraint : undefined;
};

/**
 * 40001 serialization_failure or 40P01 deadlock_detected: the transaction
 * was rolled back whole, and running it again usually succeeds at once.
 */
export const isRetryableConflict = (error: unknown): boolean => {
  const code = sqlState(error);
  return code === "40001" || code === "40P01";
};

/** 55P03 lock_not_available: a `lock_timeout` ran out. */
export const isLockNotAvailable = (error: unknown): boolean => sqlState(error) === "55P03";

// The server shutting down or restarting (57P01-57P03), too many connections (53300), a connection
// failure (class 08), a conflict (40001, 40P01), a statement cancelled by `statement_timeout` (57014),
// a lock not granted in time (55P03).
const TRANSIENT = new Set([
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "08000",
  "08001",
  "08003",
  "08006",
  "40001",
  "40P01",
  "57014",
  "55P03",
]);

/**
 * A failure of the database that is not the statement's fault, after which
 * nothing of the transaction was kept and the same work may well succeed a
 * moment later (docs/decisions/0020).
 */
export const isTransientFailure = (error: unknown): boolean => TRANSIENT.has(sqlState(error) ?? "");

/** 0A000 feature_not_supported, as a prepared statement raises it when a migration changed the tables it reads (`cached plan must not change result type`). */
export const isCachedPlanInvalid = (error: unknown): boolean => sqlState(error) === "0A000";
