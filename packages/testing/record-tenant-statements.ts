/**
 * Vitest set-up file of every package whose tests touch SQL: records the
 * statements of the code under test for the tenant-statement check the
 * global set-up runs at the end (tenant-statements.ts).
 */
import { inject } from "vitest";
import "./provided-context.ts";
import { recordTenantStatements } from "./tenant-statements.ts";

recordTenantStatements(inject("tenantStatements"));
