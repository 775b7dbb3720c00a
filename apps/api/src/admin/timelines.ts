/**
 * Timelines as administrators author them (docs/decisions/0620): a JSON
 * definition (`TimelineDefinition.Definition`) checked whole before anything
 * is written, then, in one transaction, the timeline's scheduling, its
 * timepoints and actions (what `GET /timelines` reads) and the next version of
 * its definition, which becomes the one new enrollments take. Debts already
 * enrolled keep the version they started on until they restart.
 */
import {
  type Db,
  deleteTimepoints,
  insertTimeline,
  insertTimelineActions,
  insertTimelineVersion,
  insertTimepoints,
  lockCompany,
  markDefaultTimeline,
  updateTimelineScheduling,
} from "@dc/db";
import type { DbTransaction } from "@dc/db";
import { ParseIssues, TimelineDefinition } from "@dc/domain";
import * as JsonText from "@dc/json-text";
import { Either, Schema } from "effect";

type Definition = TimelineDefinition.Definition;

/**
 * The timeline every new tenant starts with, and its default: an e-mail on
 * the day the debt is enrolled, an SMS three days later, an automated call a
 * week in (two attempts), and a last e-mail at two weeks, Monday to Friday
 * from 09:00 to 19:00 in each debtor's own time zone. Every step speaks with
 * its channel's default template (no `content`).
 */
export const standardDefinition: Definition = {
  scheduling: { time_zone: null, weekdays: [1, 2, 3, 4, 5], window: { start: "09:00", end: "19:00" } },
  steps: [
    { day_offset: 0, channel: "email", configuration: {}, content: {} },
    { day_offset: 3, channel: "sms", configuration: {}, content: {} },
    { day_offset: 7, channel: "ai_call", configuration: { max_attempts: 2 }, content: {} },
    { day_offset: 14, channel: "email", configuration: {}, content: {} },
  ],
};

/** A definition the CLI refused, with one line per problem, each naming its JSON path. */
export class InvalidDefinition extends Error {
  override readonly name = "InvalidDefinition";
  readonly problems: ReadonlyArray<string>;
  constructor(problems: ReadonlyArray<string>) {
    super(
      `the timeline definition is invalid; nothing was written:\n${problems.map((problem) => `  ${problem}`).join("\n")}`,
    );
    this.problems = problems;
  }
}

const pathOf = (path: ReadonlyArray<PropertyKey>): string =>
  path.length === 0 ? "(the definition)" : path.map(String).join(".");

/** Parses and checks a definition's JSON text; throws InvalidDefinition naming every problem. */
export const parseDefinition = (text: string): Definition => {
  let parsed: unknown;
  try {
    parsed = JsonText.parse(text);
  } catch (error) {
    throw new InvalidDefinition([`not JSON: ${(error as Error).message}`]);
  }
  const duplicate = JsonText.findDuplicateKey(text, parsed);
  if (duplicate !== undefined)
    throw new InvalidDefinition([`${pathOf(duplicate.path.split(".").slice(1))}: ${duplicate.message}`]);
  const decoded = Schema.decodeUnknownEither(TimelineDefinition.Definition, {
    errors: "all",
    onExcessProperty: "error",
  })(parsed);
  if (Either.isLeft(decoded)) {
    throw new InvalidDefinition(
      ParseIssues.plainIssues(decoded.left).map((issue) =>
        issue._tag === "Unexpected"
          ? `${pathOf(issue.path)}: unknown field`
          : `${pathOf(issue.path)}: ${issue.message}`,
      ),
    );
  }
  return TimelineDefinition.inRunOrder(decoded.right);
};

/** Writes the steps as timepoints (one per day offset, in run order) and their actions (in written order). */
const writeSteps = async (trx: DbTransaction, companyId: number, timelineId: number, definition: Definition) => {
  const days = [...new Set(definition.steps.map((step) => step.day_offset))];
  const timepoints = await insertTimepoints(
    trx,
    { companyId, timelineId },
    days.map((dayOffset, position) => ({ position, dayOffset })),
  );
  const timepointOfDay = new Map(timepoints.map((timepoint) => [days[timepoint.position]!, timepoint.id]));
  const positions = new Map<number, number>();
  await insertTimelineActions(
    trx,
    companyId,
    definition.steps.map((step) => {
      const position = positions.get(step.day_offset) ?? 0;
      positions.set(step.day_offset, position + 1);
      return {
        timepointId: timepointOfDay.get(step.day_offset)!,
        position,
        channel: step.channel,
        configuration: step.configuration,
        content: step.content,
      };
    }),
  );
};

export interface WrittenTimeline {
  readonly id: number;
  readonly name: string;
  readonly is_default: boolean;
  readonly version: number;
}

/**
 * Creates a timeline from a checked definition (in run order) with its
 * version 1; `isDefault` makes it the company's default timeline.
 */
export const createTimeline = (
  db: Db,
  companyId: number,
  name: string,
  definition: Definition = standardDefinition,
  options: { readonly isDefault?: boolean; readonly now?: Date } = {},
): Promise<WrittenTimeline> =>
  db.transaction().execute(async (trx) => {
    const ordered = TimelineDefinition.inRunOrder(definition);
    const isDefault = options.isDefault === true;
    if (isDefault) await lockCompany(trx, companyId);
    const timeline = await insertTimeline(trx, companyId, name, ordered, options.now ?? new Date());
    await writeSteps(trx, companyId, timeline.id, ordered);
    if (isDefault) await markDefaultTimeline(trx, companyId, timeline.id);
    return { id: timeline.id, name: timeline.name, is_default: isDefault, version: 1 };
  });

/**
 * Writes a new version of a timeline (not archived) from a checked
 * definition: its scheduling, timepoints and actions are replaced, and the
 * version becomes current. Undefined when there is no such timeline.
 */
export const updateTimeline = (
  db: Db,
  timeline: { readonly companyId: number; readonly timelineId: number; readonly name?: string | undefined },
  options: { readonly definition: Definition; readonly isDefault?: boolean; readonly now: Date },
): Promise<WrittenTimeline | undefined> =>
  db.transaction().execute(async (trx) => {
    const definition = TimelineDefinition.inRunOrder(options.definition);
    if (options.isDefault === true) await lockCompany(trx, timeline.companyId);
    const updated = await updateTimelineScheduling(trx, { ...timeline, now: options.now }, definition.scheduling);
    if (updated === undefined) return undefined;
    await deleteTimepoints(trx, timeline.companyId, timeline.timelineId);
    await writeSteps(trx, timeline.companyId, timeline.timelineId, definition);
    const version = await insertTimelineVersion(trx, {
      companyId: timeline.companyId,
      timelineId: timeline.timelineId,
      definition,
      now: options.now,
    });
    if (version === undefined) throw new Error(`timeline ${timeline.timelineId} vanished while it was locked`);
    if (options.isDefault === true) await markDefaultTimeline(trx, timeline.companyId, timeline.timelineId);
    return {
      id: updated.id,
      name: updated.name,
      is_default: updated.is_default || options.isDefault === true,
      version: version.version,
    };
  });
