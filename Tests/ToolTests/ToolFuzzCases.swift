import Determinism
import Foundation

/// How ``ToolFuzzTests`` draws one case: a verb, then each of its arguments and options from
/// the pools, each option present or not.
extension Pools {
    func makeCase(number: Int, using generator: inout SplitMix64) -> ToolFuzzTests.Case {
        // Three in four cases exercise journal-replay: its runs start in a third of msync's time.
        if Int.random(in: 0..<4, using: &generator) < 3 {
            return replayCase(number: number, using: &generator)
        }
        return msyncCase(number: number, using: &generator)
    }

    private func pick<T>(_ values: [T], _ generator: inout SplitMix64) -> T {
        values[Int.random(in: 0..<values.count, using: &generator)]
    }

    /// `--name value` half of the time.
    private func maybe(_ name: String, _ values: [String], _ generator: inout SplitMix64) -> [String] {
        Bool.random(using: &generator) ? [name, pick(values, &generator)] : []
    }

    private func freshPath(_ number: Int) -> String {
        root.appendingPathComponent("new-\(number)").path
    }

    private func replayCase(number: Int, using g: inout SplitMix64) -> ToolFuzzTests.Case {
        let verbs = [
            "info", "log", "state", "verify", "export", "import", "diff", "blame", "compact", "rebuild", "recover",
            "replay-session", "simulate", "bogus",
        ]
        let verb = pick(verbs, &g)
        let path = pick(paths, &g)
        var arguments = [verb]
        var alsoAllowed: Set<Int32> = []
        switch verb {
        case "info":
            arguments += [path] + (Bool.random(using: &g) ? ["--json"] : [])
        case "log":
            arguments += [path] + maybe("--from", Self.numbers, &g) + maybe("--to", Self.numbers, &g)
            arguments += maybe("--kind", Self.texts, &g) + maybe("--soup", Self.texts, &g)
            arguments += maybe("--sync", Self.texts + Self.numbers, &g) + (Bool.random(using: &g) ? ["--json"] : [])
        case "state":
            arguments += [path] + maybe("--as-of", Self.numbers, &g) + maybe("--soup", Self.texts, &g)
        case "verify":
            arguments += [path]
            alsoAllowed = [1]
        case "export":
            arguments += [path] + maybe("--to", Self.numbers, &g)
        case "import":
            arguments += [pick(importFiles, &g), pick([freshPath(number), freshPath(number), path], &g)]
        case "diff":
            arguments += [path, pick(paths, &g)]
            alsoAllowed = [1]
        case "blame":
            arguments += [path, pick(Self.texts, &g), pick(["x1", "1", "", "999", "-1"], &g)]
        case "compact":
            arguments += [path] + retentionOptions(&g)
            arguments +=
                maybe("--copy", [freshPath(number), "", path], &g) + maybe("--archive", [freshPath(number), ""], &g)
        case "rebuild", "recover":
            arguments += [path]
        case "replay-session":
            arguments += [pick([path, "", "/dev/zero", root.path], &g)]
            alsoAllowed = [1]
        case "simulate":
            // Only values that are refused or finish at once: a valid long campaign is a soak.
            arguments += ["--seed", pick(["1", "-1", "x", "18446744073709551616", ""], &g)]
            arguments += ["--steps", pick(["0", "-5", "100001", "x", "1e3", "9223372036854775808"], &g)]
            arguments += maybe("--seeds", ["0", "10001", "-1", "x"], &g)
            arguments += maybe("--shrink-attempts", ["-1", "100001", "x", "0"], &g)
        default:
            arguments += [path]
        }
        return ToolFuzzTests.Case(
            number: number, tool: "journal-replay", arguments: arguments, alsoAllowed: alsoAllowed)
    }

    private func retentionOptions(_ g: inout SplitMix64) -> [String] {
        maybe("--retain-days", Self.numbers, &g) + maybe("--retain-mib", Self.numbers, &g)
            + maybe("--retain-entries", Self.numbers, &g)
            + (Int.random(in: 0..<4, using: &g) == 0 ? ["--keep-all-history"] : [])
    }

    private func msyncCase(number: Int, using g: inout SplitMix64) -> ToolFuzzTests.Case {
        let verbs = [
            "register-soup", "alter-soup", "clear-soup", "drop-soup", "soups", "create", "update", "delete", "upsert",
            "get", "query", "smart-query", "dirty", "setup", "sync-down", "sync-up", "resync", "clean-ghosts", "status",
            "delete-sync", "compact", "rotate-key", "generate-key", "import-smartstore", "nope",
        ]
        let verb = pick(verbs, &g)
        var arguments = [verb] + msyncVerbArguments(verb, number: number, &g)
        let store = pick(paths + [freshPath(number)], &g)
        arguments += ["--store", store] + (Bool.random(using: &g) ? ["--json"] : [])
        if Int.random(in: 0..<4, using: &g) == 0 { arguments += retentionOptions(&g) }
        // A connection that cannot work: no server answers on port 1, or the URL is not one.
        if Int.random(in: 0..<4, using: &g) == 0 {
            arguments += ["--instance-url", pick(["http://127.0.0.1:1", "", "not a url", "ftp://x"], &g)]
            arguments += ["--access-token", pick(["t", ""], &g)] + maybe("--api-version", ["v66.0", "", "x"], &g)
        }
        if Int.random(in: 0..<8, using: &g) == 0 { arguments += ["--key-file", pick(importFiles, &g)] }
        let syncVerbs: Set<String> = ["sync-down", "sync-up", "resync", "clean-ghosts"]
        return ToolFuzzTests.Case(
            number: number, tool: "msync", arguments: arguments, alsoAllowed: syncVerbs.contains(verb) ? [1, 4] : [])
    }

    private func msyncVerbArguments(_ verb: String, number: Int, _ g: inout SplitMix64) -> [String] {
        let soup = pick(Self.texts, &g)
        let index = ["--index", pick(["Id:string", "a:integer", "a:", ":string", "a:nope", "", "a:string"], &g)]
        switch verb {
        case "register-soup", "alter-soup":
            return [soup] + index + maybe("--index", ["a:string", "a:integer", "Id:string", "b:full_text"], &g)
        case "clear-soup", "drop-soup", "dirty":
            return [soup]
        case "create":
            return [soup, pick(Self.json, &g)]
        case "update":
            return [soup, pick(["x1", "1", "", "999"], &g), pick(Self.json, &g)]
        case "delete", "get":
            return [soup, pick(["x1", "1", "", "-1", "18446744073709551616"], &g)]
        case "upsert":
            return [soup, pick(Self.json, &g)] + maybe("--external-id-path", Self.texts, &g)
        case "query":
            let filter = maybe(
                pick(["--exact", "--range", "--like", "--match"], &g), ["Id=x1", "Id=a..b", "Id", "=", "x*", ""], &g)
            return [soup] + filter + maybe("--page-size", Self.numbers, &g) + maybe("--page", Self.numbers, &g)
                + maybe("--order-by", Self.texts, &g) + (Bool.random(using: &g) ? ["--count"] : [])
        case "smart-query":
            let sql = pick(["SELECT {acc:Id} FROM {acc}", "SELECT", "", "DROP TABLE x", "{nope}"], &g)
            return [sql] + maybe("--args", Self.json, &g) + maybe("--page-size", Self.numbers, &g)
        case "setup":
            return ["--store-config", pick(importFiles, &g), "--syncs-config", pick(importFiles, &g)]
        case "sync-down":
            return ["--soup", soup, "--target", pick(Self.json, &g)]
                + maybe("--merge-mode", ["OVERWRITE", "x", ""], &g)
        case "sync-up":
            return ["--soup", soup] + maybe("--target", Self.json, &g) + maybe("--fieldlist", ["Name", "", ","], &g)
        case "resync", "clean-ghosts", "delete-sync", "status":
            return [pick(["1", "nope", "", "-1", "18446744073709551616"], &g)]
        case "compact":
            return maybe("--archive", [freshPath(number), "", "/dev/null"], &g)
        case "rotate-key":
            return ["--new-key-file", pick(importFiles, &g)]
        case "import-smartstore":
            return [pick(importFiles + paths + ["", "/dev/zero"], &g)]
        default:
            return []
        }
    }
}
