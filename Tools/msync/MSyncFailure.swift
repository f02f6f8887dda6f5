import ArgumentParser
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SalesforceAPI
import SmartStoreImport
import Soups
import ToolSupport

/// msync's exit statuses (docs: DESIGN.md).
enum MSyncExit {
    static let syncFailed = ExitCode(1)
    static let badInput = ExitCode(2)
    static let storeError = ExitCode(3)
    static let serverUnreachable = ExitCode(4)
}

/// Prints one clear line for `error` and returns the exit status it maps to.
func fail(_ error: any Error) -> ExitCode {
    // A damaged journal is the store's trouble whatever the operation: its own line, status 3.
    if let damage = DamagedJournal.find(in: error) {
        FileHandle.standardError.write(Data("msync: \(FailureLine.text(for: damage))\n".utf8))
        return MSyncExit.storeError
    }
    FileHandle.standardError.write(Data("msync: \(FailureLine.text(for: error))\n".utf8))
    switch error {
    case let error as SoupError:
        return error.code == .storage ? MSyncExit.storeError : MSyncExit.badInput
    case let error as JournalError:
        let badInput: Set<JournalError.Code> = [
            .invalidEntry, .malformedExport, .invalidKey, .keyRequired, .wrongKey, .notEncrypted,
        ]
        return badInput.contains(error.code) ? MSyncExit.badInput : MSyncExit.storeError
    case let error as SyncError:
        return error.code == .leaseUnavailable ? MSyncExit.storeError : MSyncExit.badInput
    case let error as SmartStoreImportError:
        return error.isBadInput ? MSyncExit.badInput : MSyncExit.storeError
    case is JSONParseError, is UsageFailure:
        return MSyncExit.badInput
    case let error as SalesforceError:
        // No answer, or the server would not let us in: status 4. Other refusals are input.
        switch error.code {
        case .network, .timeout, .sessionRevoked, .authenticationFailed: return MSyncExit.serverUnreachable
        default: return MSyncExit.badInput
        }
    case let exit as ExitCode:
        return exit
    default:
        return MSyncExit.storeError
    }
}

/// Runs `body`, turning any error into one line on standard error and msync's exit status.
func reportingFailures<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        throw fail(error)
    }
}
