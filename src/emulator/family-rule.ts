import { type FamilyNumber, ServiceError, type ServiceErrorCode } from './service-error.js';

/**
 * One condition the service family refuses, as its error catalogue
 * (docs/family-errors.md) numbers it: the rule the emulator applies for a
 * catalogue row. A kind declares the rules of the fields it owns
 * (src/kinds/<kind>/emulator-errors.ts); the request pipeline those of
 * every request (api-errors.ts). test/emulator/family-catalogue.test.ts
 * walks the catalogue and finds, for every row, a rule or a reason.
 */
export interface FamilyRuleSpec {
  /** The family's number; answered as `ERR_NGROK_<n>` when the emulator speaks the family's codes. */
  readonly code: FamilyNumber;
  readonly status: number;
  /**
   * The emulator's own word for it, its default `error_code`. One word per
   * family number: many numbers may share a word.
   */
  readonly word: ServiceErrorCode;
  /** Headings of docs/family-errors.md (without `## `) whose row of this number the rule answers. */
  readonly sections: readonly string[];
  /** What is refused, in our words. */
  readonly condition: string;
  /**
   * Decidable from the manifests alone, for a request edgesync sends:
   * `validate` refuses it too, at file:line:col, before anything is sent.
   */
  readonly static?: boolean;
}

export class FamilyRule implements FamilyRuleSpec {
  readonly code: FamilyNumber;
  readonly status: number;
  readonly word: ServiceErrorCode;
  readonly sections: readonly string[];
  readonly condition: string;
  readonly static: boolean;

  constructor(spec: FamilyRuleSpec) {
    this.code = spec.code;
    this.status = spec.status;
    this.word = spec.word;
    this.sections = spec.sections;
    this.condition = spec.condition;
    this.static = spec.static ?? false;
  }

  /** Every number the rule may answer with (two when a variant picks between them). */
  get numbers(): readonly number[] {
    return typeof this.code === 'number' ? [this.code] : Object.values(this.code.byValue);
  }

  /** The error that refuses a request under this rule; `field` is the dotted path at fault. */
  refuse(message: string, field?: string): ServiceError {
    return new ServiceError(this.status, this.word, message, field, this.code);
  }

  /** The error for a field, its message prefixed with the field's path as every field error is. */
  refuseField(field: string, message: string): ServiceError {
    return this.refuse(`${field}: ${message}`, field);
  }
}

export function familyRule(spec: FamilyRuleSpec): FamilyRule {
  return new FamilyRule(spec);
}
