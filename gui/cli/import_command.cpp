// `aclgraph-inspector import PATH... --db FILE`: imports files and folders into a project database
// on a worker thread (storage::ImportJob), showing progress on a terminal; Ctrl-C cancels (the source
// being written is rolled back).
#include "gui/cli/commands.h"
#include "storage/importer.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <mutex>
#include <ostream>
#include <sstream>
#include <unistd.h>

namespace gui::cli {

namespace {

std::atomic<bool> g_interrupted { false };

extern "C" void onInterrupt(int)
{
    g_interrupted = true;
}

const char* kImportUsage
    = "usage: aclgraph-inspector import PATH... --db FILE [--quiet]\n"
      "  PATH: FX graph files (.py/.txt, print(gm.graph)), scenario JSON, TorchAir's output_code.py,\n"
      "        TORCH_COMPILE_DEBUG folders, compiled_module files, .torchair_cache folders\n"
      "  --db FILE  the project (.aclgi), created when absent\n"
      "  --quiet    no progress line and no reader warnings\n";

std::string describe(const storage::SourceResult& r)
{
    std::ostringstream s;
    s << std::left << std::setw(10) << storage::statusName(r.status) << " " << std::setw(16)
      << (r.kind.empty() ? "-" : r.kind) << " " << r.path;
    switch (r.status) {
    case storage::SourceResult::Status::Imported:
        s << "  (source " << r.sourceId << ": " << r.graphs << " graph" << (r.graphs == 1 ? "" : "s");
        if (r.passReports)
            s << ", " << r.passReports << " pass reports";
        if (r.runs)
            s << ", " << r.runs << " run" << (r.runs == 1 ? "" : "s");
        if (r.cacheEntries)
            s << ", " << r.cacheEntries << " cache entr" << (r.cacheEntries == 1 ? "y" : "ies");
        s << ", " << r.rows << " rows, " << std::fixed << std::setprecision(2) << r.seconds << " s)";
        break;
    case storage::SourceResult::Status::Duplicate:
    case storage::SourceResult::Status::Failed:
    case storage::SourceResult::Status::Cancelled:
    case storage::SourceResult::Status::Skipped:
        s << "\n    " << r.message;
        break;
    }
    return s.str();
}

} // namespace

int importCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::vector<std::string> paths;
    std::string db;
    bool quiet = false, simulate = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--db" && i + 1 < args.size())
            db = args[++i];
        else if (a == "--quiet" || a == "-q")
            quiet = true;
        else if (a == "--simulate")
            simulate = true;
        else if (a == "--help" || a == "-h") {
            out << kImportUsage;
            return 0;
        } else if (!a.empty() && a[0] == '-' && a != "-") {
            err << "aclgraph-inspector import: unknown option " << a << "\n" << kImportUsage;
            return 2;
        } else
            paths.push_back(a);
    }
    if (db.empty() || paths.empty()) {
        err << "aclgraph-inspector import: " << (db.empty() ? "--db FILE is required" : "give at least one PATH")
            << "\n"
            << kImportUsage;
        return 2;
    }

    // Progress goes to the terminal only: a line rewritten in place, cleared before each result.
    const bool tty = !quiet && isatty(STDERR_FILENO);
    std::mutex mutex;
    size_t lineWidth = 0;
    auto clearLine = [&] {
        if (lineWidth)
            err << "\r" << std::string(lineWidth, ' ') << "\r" << std::flush;
        lineWidth = 0;
    };
    storage::ImportOptions options;
    options.simulateScenarios = simulate;
    options.cancelled = [] { return g_interrupted.load(); };
    if (tty)
        options.progress = [&](const storage::ImportProgress& p) {
            std::lock_guard<std::mutex> lock(mutex);
            if (p.phase == "done")
                return clearLine();
            // "[1/1] reading /x.pickle: 312/1006 MiB", "[1/1] replaying /x.pickle: 45%, 1,234 rows";
            // the importer reports a phase with a total at most once per percent.
            const storage::ProgressWords words = storage::progressWords(p);
            std::ostringstream line;
            line << "[" << p.source + 1 << "/" << p.sources << "] " << words.phase << " " << p.path;
            if (!words.amount.empty())
                line << ": " << words.amount;
            if (p.total > 0 && p.rows) {
                storage::ImportProgress rows = p;
                rows.total = 0;
                line << ", " << storage::progressWords(rows).amount;
            }
            std::string text = line.str();
            if (text.size() > 100)
                text = text.substr(0, 48) + "..." + text.substr(text.size() - 49);
            clearLine();
            err << text << std::flush;
            lineWidth = text.size();
        };

    // Decided: a 0-byte --db file becomes a new project (SQLite treats it as an empty database); said.
    if (std::error_code ec; std::filesystem::is_regular_file(db, ec) && std::filesystem::file_size(db, ec) == 0 && !ec)
        err << "note: " << db << " is empty (0 bytes): a new project is created in it\n";
    g_interrupted = false;
    auto previous = std::signal(SIGINT, onInterrupt);
    storage::ImportJob job(db, paths, options);
    auto results = job.wait();
    std::signal(SIGINT, previous);
    {
        std::lock_guard<std::mutex> lock(mutex);
        clearLine();
    }
    if (!results) {
        err << "error: " << results.error().toString() << "\n";
        return 1;
    }
    int failed = 0;
    for (const storage::SourceResult& r : *results) {
        out << describe(r) << "\n" << std::flush; // before its diagnostics on stderr
        if (!quiet)
            for (const std::string& d : r.diagnostics)
                err << d << "\n";
        failed += r.status == storage::SourceResult::Status::Failed
            || r.status == storage::SourceResult::Status::Cancelled;
    }
    return failed ? 1 : 0;
}

} // namespace gui::cli
