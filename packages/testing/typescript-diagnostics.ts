/**
 * Type-checks source text that lives in no file (code examples taken from a
 * page or a README) with a package's own compiler settings, for tests that
 * hold documentation to the code it shows.
 */
import ts from "typescript";

/**
 * The diagnostics of compiling `files` (absolute path to source text; paths
 * that do not exist on disk) under the settings of `tsconfigPath`, each as
 * `<path> line <n>: <message>`. The files may import each other and anything
 * on disk, by the paths their names give.
 */
export const typeScriptDiagnostics = (tsconfigPath: string, files: Readonly<Record<string, string>>): string[] => {
  const config = ts.getParsedCommandLineOfConfigFile(
    tsconfigPath,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (config === undefined) throw new Error(`cannot read ${tsconfigPath}`);
  const host = ts.createCompilerHost(config.options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) => {
    const text = files[name];
    return text === undefined
      ? getSourceFile(name, version, onError, create)
      : ts.createSourceFile(name, text, version, true);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name in files || fileExists(name);
  const program = ts.createProgram(Object.keys(files), config.options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where =
      diagnostic.file === undefined || diagnostic.start === undefined
        ? ""
        : `${diagnostic.file.fileName} line ${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1}: `;
    return `${where}${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
  });
};
