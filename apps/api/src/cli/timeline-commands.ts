/**
 * `cli timeline create|update|show`: timelines authored by administrators
 * (docs/decisions/0620). The definition is JSON (`TimelineDefinition` of the
 * domain) read from `--file` or standard input, checked whole before
 * anything is written; a refusal names each problem's JSON path.
 */
import { findRowCompany, findTimelineVersions } from "@dc/db";
import {
  createTimeline,
  InvalidDefinition,
  parseDefinition,
  updateTimeline,
  type WrittenTimeline,
} from "../admin/timelines.ts";
import {
  CliError,
  type Command,
  type CommandContext,
  existingId,
  type Flags,
  flag,
  required,
  text,
} from "./command-kit.ts";

const definitionOf = async (context: CommandContext, flags: Flags) => {
  let input: string;
  try {
    input = await context.readInput(text(flags, "file"));
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(
      `--file: cannot read ${text(flags, "file")}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    return parseDefinition(input);
  } catch (error) {
    if (error instanceof InvalidDefinition) throw new CliError(error.message);
    throw error;
  }
};

const nameOf = (flags: Flags, optional: boolean): string | undefined => {
  const name = optional ? text(flags, "name") : required(flags, "name");
  if (name !== undefined && (name.trim() === "" || name.length > 200))
    throw new CliError("--name: 1 to 200 characters");
  return name;
};

const written = (context: CommandContext, companyId: number, timeline: WrittenTimeline) => ({
  id: context.ids.encode("timeline", timeline.id),
  company_id: context.ids.encode("company", companyId),
  name: timeline.name,
  is_default: timeline.is_default,
  current_version: timeline.version,
});

/** The company's timeline named by `--timeline`, with its versions. */
const timelineOf = async (context: CommandContext, flags: Flags) => {
  const timelineId = await existingId(context, flags, "timeline", "timeline", "timelines");
  const companyId = await findRowCompany(context.db, "timelines", timelineId);
  const found = (await findTimelineVersions(context.db, companyId, timelineId))!;
  return { companyId, timelineId, found };
};

export const timelineCommands: Readonly<Record<string, Command>> = {
  "timeline create": async (context, flags) => {
    const companyId = await existingId(context, flags, "company", "company", "companies");
    const name = nameOf(flags, false)!;
    const definition = await definitionOf(context, flags);
    const timeline = await createTimeline(context.db, companyId, name, definition, {
      isDefault: flag(flags, "default"),
      now: context.now(),
    });
    return written(context, companyId, timeline);
  },

  "timeline update": async (context, flags) => {
    const { companyId, timelineId, found } = await timelineOf(context, flags);
    if (found.archived_at !== null) throw new CliError("--timeline: the timeline is archived");
    const name = nameOf(flags, true);
    const definition = await definitionOf(context, flags);
    const timeline = await updateTimeline(
      context.db,
      { companyId, timelineId, name },
      { definition, isDefault: flag(flags, "default"), now: context.now() },
    );
    if (timeline === undefined) throw new CliError("--timeline: the timeline is archived");
    return {
      ...written(context, companyId, timeline),
      // Enrolled debts keep the version they started on until they restart (docs/decisions/0620).
      debts_on_earlier_versions: found.versions.reduce((sum, version) => sum + Number(version.enrollments), 0),
    };
  },

  "timeline show": async (context, flags) => {
    const { companyId, found } = await timelineOf(context, flags);
    const current = found.versions.find((version) => version.id === found.current_version_id);
    const asked = text(flags, "version");
    let shown = current;
    if (asked !== undefined) {
      if (!/^[1-9]\d{0,8}$/.test(asked)) throw new CliError("--version: a version number from 1");
      shown = found.versions.find((version) => version.version === Number(asked));
      if (shown === undefined) throw new CliError(`--version: the timeline has no version ${asked}`);
    }
    return {
      id: context.ids.encode("timeline", found.id),
      company_id: context.ids.encode("company", companyId),
      name: found.name,
      is_default: found.is_default,
      archived: found.archived_at !== null,
      current_version: current?.version ?? null,
      version: shown?.version ?? null,
      definition: shown?.definition ?? null,
      versions: found.versions.map((version) => ({
        version: version.version,
        created_at: new Date(version.created_at).toISOString(),
        current: version.id === found.current_version_id,
        enrolled_debts: Number(version.enrollments),
      })),
    };
  },
};
