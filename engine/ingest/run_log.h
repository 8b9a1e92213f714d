#pragma once
/// A run's log as a recording (issue 23): the text a job printed (TorchAir's / npugraph_ex's logger
/// at INFO or DEBUG, the simulator's own `simulate` output, Python warnings, launchers' rank
/// prefixes, and any foreign lines between them) read back into the run it tells: per process, its
/// calls, per FX graph its keys, captures, recaptures with their causes, replays, input copies and
/// their times, outputs kept or rebuilt, fallback to eager, the pools' memory states, warnings and
/// errors, each step keeping the line numbers it came from. The result is a runtime::Simulation whose
/// origin is Recorded ("TorchAir log (<file>)"), so every view, report and Compare that takes a
/// recorded memory snapshot takes a log too. docs/run-logs.md gives the rules and their sources.
///
/// What the log does not say stays unknown, never invented: a call TorchAir logs nothing for (an eager
/// call after a fallback, force_eager) is not in the run and the run says so; a recapture whose cause
/// no counters line tells has an empty cause; a log cut at its start or end says where.
///
/// Reading is one pass over the lines in bounded memory per line (a message spanning lines, such as a
/// memory state, is capped at kMaxEntryLines / kMaxEntryBytes, a step at kMaxStepLines lines); the run
/// grows with its calls unless it streams into a LogRunSink (then only the call being read is held).
#include "engine/core/result.h"
#include "engine/runtime/simulator.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace engine::ingest {

/// Who wrote a line, as its prefix tells.
enum class LogFormat {
    Torchair, ///< "[INFO] TORCHAIR(<pid>,<exe>):<date time> [<file>:<line>]<tid> <message>" (also NPUGRAPH_EX)
    TorchairShort, ///< "[INFO] TORCHAIR <date> <time> <message>" (older TorchAir, its documents' examples)
    Simulator, ///< this product's `simulate` output: "[INFO] TORCHAIR call 3: <message>", "UserWarning: <text>"
    PythonWarning, ///< "<file>:<line>: UserWarning: <text>" (warnings.showwarning)
    PyTorch, ///< glog form of torch._logging: "V1126 09:38:32.090000 437 torch/_dynamo/x.py:12] <message>"
    Foreign, ///< anything else (the program's own prints, tracebacks, a launcher's banner)
};
const char* logFormatName(LogFormat f); ///< "torchair", "torchair_short", "simulator", ...

/// One physical line, split into its prefix and its message.
struct LogEntry {
    int line = 0; ///< 1-based line number in the file
    LogFormat format = LogFormat::Foreign;
    runtime::LogLevel level = runtime::LogLevel::Info;
    std::string logger; ///< "TORCHAIR", "NPUGRAPH_EX", "PYTORCH" (simulator form); "" otherwise
    std::string rank; ///< a launcher's prefix: "[rank1]:", "[default1]:", "[1,1]<stderr>:" give "1"
    int64_t pid = -1; ///< the process id the prefix names
    int64_t timeUs = -1; ///< the prefix's time in microseconds (since the epoch, UTC as written)
    std::string source; ///< "acl_graph.py:402", "torch/_dynamo/guards.py:4760"
    int call = -1; ///< the simulator form's "call N"
    std::string category; ///< a warning's category ("UserWarning")
    std::string compileId; ///< PyTorch: the "[0/1]" after the prefix, without brackets
    std::string artifact; ///< PyTorch: the "[__cudagraphs]" logger tag, without brackets and underscores
    std::string message; ///< the rest
};

/// Splits one line (without its line end; a trailing '\r' is dropped).
LogEntry parseLogLine(std::string_view line, int lineNo);

/// Whether `head` (a file's first bytes) is a run log: at least one TorchAir / npugraph_ex logger line
/// or simulator line, or a PyTorch torch._logging line of an artifact we read. `evidence` says which
/// line told, in words.
bool looksLikeRunLog(std::string_view head, std::string* evidence = nullptr);

/// One process's run as its lines tell it.
struct LogRun {
    /// "" for a log of one process; else "rank 1" (a launcher's prefix) or "pid 4242" (the logger's).
    std::string label;
    runtime::Simulation sim;
    int firstLine = 0, lastLine = 0; ///< the lines of the log that belong to this run
    int lines = 0; ///< lines read into it (continuations included)
};

struct RunLog {
    std::string path;
    std::vector<LogRun> runs; ///< in order of their first line
    int lines = 0; ///< physical lines read
    int foreign = 0; ///< lines no reader took
    /// What the log as a whole tells or lacks ("lines 3-7: foreign text (...)", "cut: ...").
    std::vector<std::string> notes;
};

class LogRunSink; // below

constexpr int kMaxEntryLines = 4096; ///< continuation lines one message may take
constexpr size_t kMaxEntryBytes = 1 << 20; ///< bytes one message may take
constexpr size_t kMaxLineBytes = 1 << 20; ///< longer physical lines are cut (and the cut noted)
constexpr size_t kMaxStepLines = 10000; ///< lines one step keeps; the rest are counted and noted
constexpr size_t kMaxNotes = 100; ///< assumption notes one run keeps; the rest are counted

/// Reads a log line by line. feed() takes each physical line in order; finish() ends the runs and
/// returns them. Lines are tied to a process by their rank prefix, else their logger's pid.
class RunLogReader {
public:
    explicit RunLogReader(std::string path, std::function<std::unique_ptr<LogRunSink>()> sinks = {});
    ~RunLogReader();
    RunLogReader(const RunLogReader&) = delete;
    RunLogReader& operator=(const RunLogReader&) = delete;

    void feed(std::string_view line);
    /// The first error a sink returned (null when none): feeding more does nothing after it.
    const Error* error() const;
    /// The runs. An error when no line is TorchAir's or PyTorch's ("no TorchAir or PyTorch log line in
    /// its N lines"), naming the path.
    Result<RunLog> finish();

private:
    struct Impl;
    Impl* m;
};

/// Receives one process's run as it is read (RunLogOptions::sinks), so a log of any length is read in
/// bounded memory: the reader keeps only the call being read and the run's summary.
class LogRunSink {
public:
    virtual ~LogRunSink() = default;
    /// Once, before the first step or call: the run without events, calls, graphs or log (its origin,
    /// profile and path).
    virtual Result<void> begin(const runtime::Simulation& header) = 0;
    /// Each step (Event::index 0, 1, 2, ... in order), once its call has closed.
    virtual Result<void> step(const runtime::Event& event) = 0;
    /// Each call (CallRecord::index 0, 1, 2, ...), after its steps.
    virtual Result<void> call(const runtime::CallRecord& call) = 0;
    /// Once, last: the run's summary (LogRun::sim with its graphs, pools, hazards, warnings,
    /// assumptions, name and callsSimulated; its events, calls and log are empty), after every step.
    virtual Result<void> end(const LogRun& run, int events) = 0;
};

struct RunLogOptions {
    /// Bytes read so far and the file's size; returning false cancels (an ErrorCode::Cancelled error).
    std::function<bool(uint64_t done, uint64_t total)> progress;
    /// When set, each process's run streams into a sink of its own (made when the process first shows)
    /// and the RunLog's runs hold summaries only. A sink's error stops the reading with that error.
    std::function<std::unique_ptr<LogRunSink>()> sinks;
};

/// Reads a log file (a regular file; errors name it).
Result<RunLog> readRunLog(const std::string& path, const RunLogOptions& options = {});
/// The same over text already read (`path` names it in messages).
Result<RunLog> readRunLogText(std::string_view text, const std::string& path);

} // namespace engine::ingest
