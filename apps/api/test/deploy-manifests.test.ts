/**
 * The deployment paths of docs/operations.md, checked offline: every
 * Kubernetes manifest of deploy/k8s against the Kubernetes API's JSON
 * schemas (kubernetes-models' validators), the references between them
 * (selectors, probes, ConfigMap and Secret names, settings the README
 * documents), compose.yaml's services, and the layer order of the
 * Dockerfiles (manifests installed before the sources are copied; the
 * runtime stage takes only what runs).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "@dc/db";
import { Deployment } from "kubernetes-models/apps/v1";
import { Job } from "kubernetes-models/batch/v1";
import { ConfigMap, Secret, Service } from "kubernetes-models/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { describe, expect, it } from "vitest";
import { parseAllDocuments, parse as parseYaml } from "yaml";

const root = repositoryRoot();
const k8sDirectory = join(root, "deploy", "k8s");

const models = { Deployment, Job, ConfigMap, Secret, Service, PodDisruptionBudget } as const;
type Kind = keyof typeof models;

interface Manifest {
  readonly file: string;
  readonly kind: Kind;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed YAML document, read field by field below
  readonly body: any;
}

const manifests: Manifest[] = readdirSync(k8sDirectory)
  .filter((file) => file.endsWith(".yaml"))
  .sort()
  .flatMap((file) =>
    parseAllDocuments(readFileSync(join(k8sDirectory, file), "utf8")).map((document) => {
      const body = document.toJS() as { kind: string };
      if (!(body.kind in models)) throw new Error(`${file}: kind ${body.kind} is not checked here`);
      return { file, kind: body.kind as Kind, body };
    }),
  );

const one = (kind: Kind, name: string): Manifest => {
  const found = manifests.filter((manifest) => manifest.kind === kind && manifest.body.metadata.name === name);
  expect(found, `${kind} ${name}`).toHaveLength(1);
  return found[0]!;
};

/** The settings the README's Configuration table documents. */
const documentedSettings = new Set(
  [...readFileSync(join(root, "README.md"), "utf8").matchAll(/^\| `([A-Z_]+)`/gm)].map((match) => match[1]),
);

describe("deploy/k8s", () => {
  it("holds the api and worker Deployments, the migration Job, a Service, a PDB, a ConfigMap and an example Secret", () => {
    expect(manifests.map(({ file, kind }) => `${file}: ${kind}`)).toEqual([
      "api-deployment.yaml: Deployment",
      "api-pdb.yaml: PodDisruptionBudget",
      "api-service.yaml: Service",
      "configmap.yaml: ConfigMap",
      "migration-job.yaml: Job",
      "secret.example.yaml: Secret",
      "worker-deployment.yaml: Deployment",
    ]);
  });

  it("validates every manifest against the Kubernetes API schemas", () => {
    for (const { file, kind, body } of manifests) {
      expect(() => new models[kind](body).validate(), file).not.toThrow();
    }
    // The validators do refuse a wrong manifest: a container whose image is not a string.
    const broken = structuredClone(one("Deployment", "debt-collection-api").body);
    broken.spec.template.spec.containers[0].image = 5;
    expect(() => new Deployment(broken).validate()).toThrow(/image must be string/);
  });

  it("probes the api's /readyz for readiness and /healthz for liveness on its port, and the worker's /healthz", () => {
    const api = one("Deployment", "debt-collection-api").body.spec.template.spec.containers[0];
    expect(api.ports).toEqual([{ name: "http", containerPort: 3000 }]);
    expect(api.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
    expect(api.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    const worker = one("Deployment", "debt-collection-worker").body.spec.template.spec.containers[0];
    expect(worker.ports).toEqual([{ name: "metrics", containerPort: 9464 }]);
    expect(worker.env).toContainEqual({ name: "WORKER_METRICS_PORT", value: "9464" });
    expect(worker.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "metrics" });
  });

  it("selects the pods it means: Deployments their templates, the Service and the PDB the api's pods", () => {
    const apiLabels = one("Deployment", "debt-collection-api").body.spec.template.metadata.labels;
    for (const name of ["debt-collection-api", "debt-collection-worker"]) {
      const { spec } = one("Deployment", name).body;
      expect(spec.template.metadata.labels).toMatchObject(spec.selector.matchLabels);
    }
    expect(apiLabels).toMatchObject(one("Service", "debt-collection-api").body.spec.selector);
    expect(apiLabels).toMatchObject(one("PodDisruptionBudget", "debt-collection-api").body.spec.selector.matchLabels);
    expect(one("Service", "debt-collection-api").body.spec.ports[0].targetPort).toBe("http");
  });

  it("gives every container resource requests and the settings of the ConfigMap and Secret, all documented", () => {
    const configMap = one("ConfigMap", "debt-collection-config").body;
    const secret = one("Secret", "debt-collection-secrets").body;
    for (const key of [...Object.keys(configMap.data), ...Object.keys(secret.stringData)]) {
      expect(documentedSettings.has(key), key).toBe(true);
    }
    expect(Object.keys(secret.stringData).sort()).toEqual(["DATABASE_URL", "ID_ENCRYPTION_KEY", "METRICS_TOKEN"]);
    expect(configMap.data.NODE_ENV).toBe("production");
    expect(configMap.data.PUBLIC_BASE_URL).toMatch(/^https:\/\//);
    const pods = [
      one("Deployment", "debt-collection-api").body.spec.template.spec,
      one("Deployment", "debt-collection-worker").body.spec.template.spec,
      one("Job", "debt-collection-migrate").body.spec.template.spec,
    ];
    for (const pod of pods) {
      for (const container of pod.containers) {
        expect(container.resources.requests, container.name).toMatchObject({
          cpu: expect.any(String),
          memory: expect.any(String),
        });
        expect(container.envFrom).toEqual([
          { configMapRef: { name: "debt-collection-config" } },
          { secretRef: { name: "debt-collection-secrets" } },
        ]);
      }
    }
  });

  it("migrates with the api image's migration script, as compose does", () => {
    const job = one("Job", "debt-collection-migrate").body.spec.template.spec;
    expect(job.restartPolicy).toBe("Never");
    expect(job.containers[0].image).toBe("debt-collection-api:latest");
    expect(job.containers[0].command).toEqual(["node", "packages/db/src/scripts/migrate.ts"]);
    const compose = parseYaml(readFileSync(join(root, "compose.yaml"), "utf8"), { merge: true });
    expect(compose.services.migrate.command).toEqual(job.containers[0].command);
  });
});

describe("compose.yaml", () => {
  const compose = parseYaml(readFileSync(join(root, "compose.yaml"), "utf8"), { merge: true });

  it("runs PostgreSQL, the migration, the api, the worker and an SMTP capture, in that order of start", () => {
    expect(Object.keys(compose.services)).toEqual(["postgres", "migrate", "api", "worker", "mailpit"]);
    expect(compose.services.migrate.depends_on).toEqual({ postgres: { condition: "service_healthy" } });
    for (const name of ["api", "worker"]) {
      expect(compose.services[name].depends_on, name).toEqual({
        migrate: { condition: "service_completed_successfully" },
      });
    }
    expect(compose.services.api.ports).toEqual(["3000:3000"]);
  });

  it("builds the images from this repository's Dockerfiles and runs them in production with documented settings", () => {
    expect(compose.services.migrate.build).toEqual({ context: ".", dockerfile: "apps/api/Dockerfile" });
    expect(compose.services.worker.build).toEqual({ context: ".", dockerfile: "apps/worker/Dockerfile" });
    expect(compose.services.api.image).toBe(compose.services.migrate.image);
    for (const name of ["migrate", "api", "worker"]) {
      const environment = compose.services[name].environment as Record<string, string>;
      expect(environment["NODE_ENV"], name).toBe("production");
      expect(environment["DATABASE_URL"], name).toMatch(/@postgres:5432\//);
      for (const key of Object.keys(environment)) expect(documentedSettings.has(key), `${name}: ${key}`).toBe(true);
    }
    expect(compose.services.api.environment.PUBLIC_BASE_URL).toMatch(/^\$\{PUBLIC_BASE_URL:-https:\/\//);
  });
});

/** A Dockerfile's instructions, continuation lines joined and comments dropped, split into stages. */
const stagesOf = (file: string): string[][] => {
  const stages: string[][] = [];
  for (const line of readFileSync(file, "utf8").replace(/\\\n/g, " ").split("\n")) {
    const instruction = line.trim();
    if (instruction === "" || instruction.startsWith("#")) continue;
    if (/^FROM\s/i.test(instruction)) stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages;
};

/** Every workspace package's folder (pnpm-workspace.yaml's globs are all `dir/*`). */
const workspacePackages = (): string[] =>
  (parseYaml(readFileSync(join(root, "pnpm-workspace.yaml"), "utf8")).packages as string[]).flatMap((glob) => {
    const parent = glob.replace(/\/\*$/, "");
    return readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && readdirSync(join(root, parent, entry.name)).includes("package.json"))
      .map((entry) => `${parent}/${entry.name}`);
  });

/** The workspace packages `name` depends on, itself included, by their folders. */
const workspaceClosure = (folder: string): string[] => {
  const byName = new Map(
    workspacePackages().map((dir) => [JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")).name, dir]),
  );
  const seen = new Set<string>();
  const visit = (dir: string) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const manifest = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      const found = byName.get(dependency);
      if (found !== undefined) visit(found);
    }
  };
  visit(folder);
  return [...seen].sort();
};

describe.each(["api", "worker"])("apps/%s/Dockerfile", (app) => {
  const [install = [], runtime = []] = stagesOf(join(root, "apps", app, "Dockerfile"));

  it("installs from the manifests alone, then copies the sources: a source change reuses the install", () => {
    const installAt = install.findIndex((instruction) => /^RUN pnpm install /.test(instruction));
    const sourcesAt = install.indexOf("COPY . .");
    expect(installAt).toBeGreaterThan(0);
    expect(sourcesAt).toBeGreaterThan(installAt);
    expect(install[installAt]).toContain("--frozen-lockfile --prod");
    // No TypeScript compiler ships: nothing the apps run loads it.
    expect(install[installAt]).toMatch(/ && rm -rf node_modules\/\.pnpm\/typescript@\*$/);
    const copiedBefore = install
      .slice(0, installAt)
      .filter((instruction) => /^COPY\s/.test(instruction))
      .flatMap((instruction) => instruction.split(/\s+/).slice(1, -1));
    // Only manifests, and every workspace package's: pnpm checks the lockfile against all of them.
    for (const source of copiedBefore)
      expect(source).toMatch(/(^|\/)(package\.json|pnpm-lock\.yaml|pnpm-workspace\.yaml)$/);
    expect(copiedBefore.filter((source) => source.includes("/")).sort()).toEqual(
      workspacePackages()
        .map((dir) => `${dir}/package.json`)
        .sort(),
    );
  });

  it("ships the workspace packages the app runs and their production dependencies, nothing else of the repository", () => {
    const copied = runtime
      .filter((instruction) => /^COPY\s+--from=install/.test(instruction))
      .flatMap((instruction) =>
        instruction
          .split(/\s+/)
          .filter((part) => !part.startsWith("--"))
          .slice(1, -1),
      )
      .map((source) => source.replace(/^\/app\//, ""))
      .sort();
    const packages = workspaceClosure(`apps/${app}`);
    expect(copied).toEqual(["node_modules", "package.json", "pnpm-workspace.yaml", ...packages].sort());
    expect(install.at(-1)).toBe("RUN rm -rf apps/*/test apps/*/bench packages/*/test");
    expect(runtime).toContain("ENV NODE_ENV=production");
    expect(runtime).toContain(`CMD ["node", "apps/${app}/src/main.ts"]`);
    expect(runtime.some((instruction) => instruction.startsWith("HEALTHCHECK "))).toBe(true);
  });
});
