// @ts-check
// The widget's check of a host call's arguments against the JSON Schema its
// function was offered with, before the call reaches the embedding page: the
// validator (@cfworker/json-schema, bundled by scripts/vendor-json-schema.mjs)
// loads the first time a call needs it. Bound from Rust in
// src/surfaces/host_functions.rs.
import { JSON_SCHEMA_MODULE } from "./generated/names.js";

/**
 * @typedef {{ validate(value: unknown): { valid: boolean, errors: { instanceLocation: string, error: string }[] } }} Validator
 */

/**
 * The validator's module, loaded once; tried again after a failure.
 *
 * @type {Promise<{ Validator: new (schema: object, draft?: string, shortCircuit?: boolean) => Validator }> | null}
 */
let loaded = null;

/** @type {WeakMap<object, Validator>} A validator per schema object, made on its first call. */
const validators = new WeakMap();

function library() {
  loaded ??= import(new URL(JSON_SCHEMA_MODULE, document.baseURI).href);
  loaded.catch(() => (loaded = null));
  return loaded;
}

/**
 * The arguments of a host call (`argumentsJson`, JSON text) parsed, and why
 * they do not match `schema` (null when they do).
 *
 * @param {object} schema
 * @param {string} argumentsJson
 * @returns {Promise<[unknown, string | null]>}
 */
export async function checkArguments(schema, argumentsJson) {
  const args = JSON.parse(argumentsJson);
  let validator = validators.get(schema);
  if (validator === undefined) {
    const { Validator } = await library();
    validator = new Validator(schema, "2020-12", false);
    validators.set(schema, validator);
  }
  const { valid, errors } = validator.validate(args);
  if (valid) return [args, null];
  // The innermost errors say what is wrong; the outer ones only that something below is.
  const said = errors.filter((error) => !/does not match (schema|additional properties)/.test(error.error));
  return [args, (said.length ? said : errors).map((error) => `${error.instanceLocation}: ${error.error}`).join("; ")];
}
