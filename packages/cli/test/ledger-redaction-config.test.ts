import { createSecretRedactor } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { ledgerRedactionOf } from "../src/chat/ledger-redaction.js";

describe("the chat's ledger file is redacted with the user's own rules from engines.lcm.redaction", () => {
  it("takes extra detectors, allowed strings and kinds turned off; defaults when the section sets none", () => {
    const rules = ledgerRedactionOf({
      lcm: { redaction: { extra: [{ kind: "ticket_token", pattern: "TKT-[0-9]{6}" }], allow: ["sk-test-allowed-000000000000000000"], disable: ["email"] } },
    });
    expect(rules.extra).toEqual([{ kind: "ticket_token", pattern: "TKT-[0-9]{6}" }]);
    const text = createSecretRedactor(rules).redactText("deploy with TKT-123456 by ops@example.com").text;
    expect(text).not.toContain("TKT-123456");
    expect(ledgerRedactionOf(undefined)).toEqual({});
    expect(ledgerRedactionOf({ lcm: { redaction: true } })).toEqual({});
    expect(ledgerRedactionOf({ lcm: { redaction: false } })).toEqual({});
  });
});
