// The log reader's owner (run_log.h): the file, its lines, which process each line belongs to,
// messages continued over several lines, foreign lines, and the builders of each process's run.
#include "engine/core/file_io.h"
#include "engine/ingest/run_log_impl.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

namespace engine::ingest {

namespace {

constexpr size_t kForeignNotes = 5; ///< foreign stretches named one by one; the rest are counted
constexpr size_t kHeldEntries = 1000; ///< warnings held until the first process shows itself

/// '{' minus '}' in a text: a TorchAir message continues on the next lines while it is positive.
int braceBalance(std::string_view s)
{
    int b = 0;
    for (char c : s)
        b += c == '{' ? 1 : c == '}' ? -1 : 0;
    return b;
}

bool isTorchairLogger(const LogEntry& e)
{
    return (e.format == LogFormat::Torchair || e.format == LogFormat::TorchairShort || e.format == LogFormat::Simulator)
        && (e.logger == "TORCHAIR" || e.logger == "NPUGRAPH_EX");
}

} // namespace

namespace detail {

bool LogRunState::begin()
{
    if (m_begun || m_error)
        return !m_error;
    m_begun = true;
    runtime::Simulation header;
    header.origin = sim.origin;
    header.profile = sim.profile;
    header.scenarioPath = sim.scenarioPath;
    header.scenarioName = sim.scenarioName;
    header.sizesUnknown = sim.sizesUnknown;
    if (auto r = m_sink->begin(header); !r)
        m_error = r.error();
    return !m_error;
}

runtime::Event& LogRunState::newEvent()
{
    runtime::Event e;
    e.index = eventCount();
    sim.events.push_back(std::move(e));
    return sim.events.back();
}

void LogRunState::addLine(runtime::Event& event, const runtime::LogLine& line)
{
    if (event.log.size() >= kMaxStepLines) {
        ++m_droppedLines;
        return;
    }
    event.log.push_back(line);
    if (!m_sink)
        sim.log.push_back(line);
}

void LogRunState::flushSteps()
{
    if (!m_sink || sim.events.empty() || !begin())
        return;
    for (const runtime::Event& e : sim.events)
        if (auto r = m_sink->step(e); !r) {
            m_error = r.error();
            break;
        }
    m_base += int(sim.events.size());
    sim.events.clear();
}

void LogRunState::addCall(const runtime::CallRecord& call)
{
    ++m_calls;
    if (!m_sink) {
        sim.calls.push_back(call);
        return;
    }
    flushSteps();
    if (!m_error && begin())
        if (auto r = m_sink->call(call); !r)
            m_error = r.error();
}

void RecompileTracker::add(const std::string& message, const std::string& compileId, int call,
    std::vector<runtime::Hazard>& hazards, size_t* hazard)
{
    if (message.rfind("Recompiling function ", 0) == 0) {
        ++m_count;
        m_last = message.substr(21);
        Function& f = m_functions[m_last];
        f.calls.push_back(call);
        f.ids.push_back(compileId);
        f.failure.clear();
    } else if (message.rfind("    - ", 0) == 0 && !m_last.empty() && m_functions[m_last].failure.empty()) {
        m_functions[m_last].failure = message.substr(6);
    } else {
        return;
    }
    Function& f = m_functions[m_last];
    if (int(f.calls.size()) < kRepeatHazard)
        return;
    if (f.hazard == SIZE_MAX) {
        if (hazard && *hazard != SIZE_MAX) {
            f.hazard = *hazard; // the run's one recompile_per_call hazard: this tells it better
        } else {
            f.hazard = hazards.size();
            runtime::Hazard h;
            h.kind = runtime::HazardKind::RecompilePerCall;
            h.call = f.calls.back();
            h.graph = compileId;
            h.concerns = m_last;
            hazards.push_back(h);
            if (hazard)
                *hazard = f.hazard;
        }
    }
    std::string ids;
    for (size_t i = 0; i < f.ids.size() && i < 8; ++i)
        ids += (i ? ", " : "") + (f.ids[i].empty() ? std::string("?") : f.ids[i]);
    if (f.ids.size() > 8)
        ids += ", ...";
    runtime::Hazard& h = hazards[f.hazard];
    h.concerns = m_last;
    h.message = "Dynamo recompiled function " + m_last + " " + std::to_string(f.calls.size()) + " times (compile ids "
        + ids + "), from call " + std::to_string(f.calls.front()) + " to call " + std::to_string(f.calls.back())
        + ": each recompile is a new graph that " + m_consequence
        + (f.failure.empty() ? std::string() : "; the latest guard failure: " + f.failure);
}

void LogRunState::note(const std::string& text)
{
    if (std::find(m_notes.begin(), m_notes.end(), text) != m_notes.end())
        return;
    if (m_notes.size() >= kMaxNotes) {
        ++m_droppedNotes;
        return;
    }
    m_notes.push_back(text);
    sim.assumptions.push_back(text);
}

void LogRunState::finish()
{
    flushSteps();
    if (m_sink)
        begin();
    sim.callsSimulated = m_calls;
    if (m_droppedNotes)
        sim.assumptions.push_back(std::to_string(m_droppedNotes) + " more notes like these, not listed");
    if (m_droppedLines)
        sim.assumptions.push_back(std::to_string(m_droppedLines) + " lines past " + std::to_string(kMaxStepLines)
            + " in one step were counted, not kept");
}

} // namespace detail

struct RunLogReader::Impl {
    struct Process {
        std::string key;
        std::unique_ptr<LogRunSink> sink; ///< RunLogOptions::sinks' (declared before the builder that uses it)
        std::unique_ptr<detail::RunBuilder> builder;
        int firstLine = 0, lastLine = 0, lines = 0;
        int pytorchLines = 0; ///< lines of the other runtime passed over
        bool pytorch = false; ///< its builder reads PyTorch's lines
    };
    struct Pending {
        LogEntry entry;
        int lastLine = 0;
        int balance = 0;
        int extraLines = 0;
    };

    std::string path;
    std::function<std::unique_ptr<LogRunSink>()> sinks;
    std::optional<Error> error; ///< the first error of a sink: nothing more is read
    int lineNo = 0;
    std::map<std::string, size_t> index;
    std::vector<Process> processes;
    std::string current; ///< the process of the last line that named one
    std::map<std::string, Pending> pending; ///< per rank prefix ("" without): a message still open
    std::vector<LogEntry> held; ///< entries before any process
    bool inWarning = false;
    std::string lastPyTorch; ///< the process of the last PyTorch line delivered (when lastPyTorchSet)
    bool lastPyTorchSet = false; ///< the last line was a Python warning: an indented line after it is its source
    int foreign = 0;
    int foreignStart = 0, foreignEnd = 0; ///< the current stretch of foreign lines
    std::string foreignFirst;
    std::vector<std::string> notes;
    size_t foreignStretches = 0;
    bool cutLine = false;

    void foreignLine(const LogEntry& e)
    {
        ++foreign;
        if (foreignEnd == e.line - 1 && foreignEnd > 0) {
            foreignEnd = e.line;
            return;
        }
        closeForeign();
        foreignStart = foreignEnd = e.line;
        foreignFirst = e.message.substr(0, 80);
    }

    void closeForeign()
    {
        if (!foreignStart)
            return;
        if (foreignStretches++ < kForeignNotes)
            notes.push_back((foreignStart == foreignEnd
                                    ? "line " + std::to_string(foreignStart)
                                    : "lines " + std::to_string(foreignStart) + "-" + std::to_string(foreignEnd))
                + ": not TorchAir's or PyTorch's (\"" + foreignFirst + "\"), passed over");
        foreignStart = foreignEnd = 0;
    }

    Process& process(const std::string& key)
    {
        auto [it, added] = index.emplace(key, processes.size());
        if (added) {
            processes.push_back({});
            processes.back().key = key;
        }
        return processes[it->second];
    }

    /// The process a line belongs to: its rank prefix, else its pid, else the last one named.
    std::string keyOf(const LogEntry& e) const
    {
        if (!e.rank.empty())
            return "rank " + e.rank;
        if (e.pid >= 0)
            return "pid " + std::to_string(e.pid);
        return current;
    }

    void deliver(const LogEntry& e, int lastLine)
    {
        const bool torchair = isTorchairLogger(e);
        const bool pytorch
            = e.format == LogFormat::PyTorch || (e.format == LogFormat::Simulator && e.logger == "PYTORCH");
        std::string key = keyOf(e);
        if (!torchair && !pytorch && processes.empty() && key.empty()) {
            if (held.size() < kHeldEntries)
                held.push_back(e);
            return;
        }
        if (key.empty() && !processes.empty())
            key = current.empty() ? processes.back().key : current;
        current = key;
        Process& p = process(key);
        // A message held open (a memory state) or a warning held for the first process may arrive
        // after later lines of the same process: the run's lines are the span of all its lines.
        const int first = held.empty() ? e.line : std::min(e.line, held.front().line);
        p.firstLine = p.firstLine ? std::min(p.firstLine, first) : first;
        p.lastLine = std::max(p.lastLine, lastLine);
        p.lines += lastLine - e.line + 1;
        if (!p.builder && (torchair || pytorch)) {
            p.builder = torchair ? detail::makeTorchairBuilder(path) : detail::makePyTorchBuilder(path);
            p.pytorch = !torchair;
            if (sinks) {
                p.sink = sinks();
                p.builder->streamTo(p.sink.get());
            }
        }
        if (!p.builder) {
            if (held.size() < kHeldEntries)
                held.push_back(e);
            return;
        }
        if (pytorch && !p.pytorch) { // TORCH_LOGS lines of a TorchAir job: only Dynamo's recompiles are read
            ++p.pytorchLines;
            p.builder->dynamo(e);
            return;
        }
        if (torchair && p.pytorch) { // a TorchAir line in a PyTorch run: kept apart, counted
            ++p.pytorchLines;
            return;
        }
        lastPyTorch = p.pytorch ? key : std::string();
        lastPyTorchSet = p.pytorch;
        for (const LogEntry& h : held)
            p.builder->add(h);
        held.clear();
        p.builder->add(e);
        if (p.builder->error() && !error)
            error = p.builder->error();
    }

    void flush(const std::string& rank)
    {
        auto it = pending.find(rank);
        if (it == pending.end())
            return;
        Pending done = std::move(it->second);
        pending.erase(it);
        deliver(done.entry, done.lastLine);
    }

    void feed(std::string_view line)
    {
        if (error)
            return;
        ++lineNo;
        if (line.size() > kMaxLineBytes) {
            line = line.substr(0, kMaxLineBytes);
            if (!cutLine)
                notes.push_back("line " + std::to_string(lineNo) + ": longer than "
                    + std::to_string(kMaxLineBytes >> 20) + " MiB, read up to there");
            cutLine = true;
        }
        LogEntry e = parseLogLine(line, lineNo);
        if (e.format == LogFormat::Foreign) {
            auto open = pending.find(e.rank);
            if (open != pending.end()) {
                Pending& p = open->second;
                if (p.extraLines < kMaxEntryLines && p.entry.message.size() + line.size() < kMaxEntryBytes) {
                    p.entry.message += '\n';
                    p.entry.message += e.message;
                    p.lastLine = lineNo;
                    p.balance += braceBalance(e.message);
                    ++p.extraLines;
                    if (p.balance <= 0)
                        flush(e.rank);
                    return;
                }
                notes.push_back("line " + std::to_string(p.entry.line) + ": a message continued past "
                    + std::to_string(kMaxEntryLines) + " lines or 1 MiB, read up to line "
                    + std::to_string(p.lastLine));
                flush(e.rank);
            }
            if (inWarning && !e.message.empty() && (e.message[0] == ' ' || e.message[0] == '\t'))
                return; // warnings.warn's source line
            // A PyTorch message continued on unprefixed lines (a re-record's "input name: ..." lines, a
            // stack): its process's builder takes them.
            if (lastPyTorchSet && (e.message.rfind("input name: ", 0) == 0 || e.message.rfind("  ", 0) == 0)) {
                Process& p = process(lastPyTorch);
                p.lastLine = std::max(p.lastLine, lineNo);
                ++p.lines;
                p.builder->add(e);
                return;
            }
            inWarning = false;
            lastPyTorchSet = false;
            if (e.message.find_first_not_of(" \t") == std::string::npos)
                return; // a blank line is no one's
            foreignLine(e);
            return;
        }
        closeForeign();
        flush(e.rank);
        inWarning = e.format == LogFormat::PythonWarning;
        const int balance = isTorchairLogger(e) ? braceBalance(e.message) : 0;
        if (balance <= 0) {
            deliver(e, lineNo);
            return;
        }
        const std::string rank = e.rank;
        Pending& p = pending[rank];
        p.lastLine = lineNo;
        p.balance = balance;
        p.entry = std::move(e);
    }

    Result<RunLog> finish()
    {
        if (error)
            return *error;
        while (!pending.empty()) {
            notes.push_back("line " + std::to_string(pending.begin()->second.entry.line)
                + ": the log ends inside this message (cut at the end)");
            flush(pending.begin()->first);
        }
        closeForeign();
        if (foreignStretches > kForeignNotes)
            notes.push_back(std::to_string(foreignStretches - kForeignNotes) + " more stretches of foreign lines");
        RunLog log;
        log.path = path;
        log.lines = lineNo;
        log.foreign = foreign;
        log.notes = std::move(notes);
        const std::string name = std::filesystem::path(path).filename().string();
        int runs = 0;
        for (Process& p : processes)
            runs += p.builder != nullptr;
        for (Process& p : processes) {
            if (!p.builder) {
                if (p.pytorchLines)
                    log.notes.push_back((p.key.empty() ? std::string("the log") : p.key) + ": "
                        + std::to_string(p.pytorchLines) + " lines of no run");
                continue;
            }
            LogRun run;
            run.label = runs > 1 ? p.key : std::string();
            run.sim = p.builder->finish();
            run.sim.scenarioName = run.label.empty() ? name : name + " (" + run.label + ")";
            run.firstLine = p.firstLine;
            run.lastLine = p.lastLine;
            run.lines = p.lines;
            if (p.pytorchLines)
                run.sim.assumptions.push_back(std::to_string(p.pytorchLines)
                    + (p.pytorch ? " TorchAir lines of this process are not read into its PyTorch run"
                                 : " PyTorch TORCH_LOGS lines of this process are not read into its TorchAir run "
                                   "(Dynamo's recompile lines only count towards the recompile_per_call hazard)"));
            if (p.builder->error())
                return *p.builder->error();
            if (p.sink)
                if (auto r = p.sink->end(run, p.builder->eventsRead()); !r)
                    return r.error();
            log.runs.push_back(std::move(run));
        }
        if (log.runs.empty())
            return Error { ErrorCode::InvalidArgument,
                "not a run log: no TorchAir or PyTorch log line in its " + std::to_string(lineNo)
                    + " lines (TorchAir's logger writes \"[INFO] TORCHAIR(<pid>,<exe>):<time> [<file>:<line>]<tid> "
                      "<message>\", PyTorch's TORCH_LOGS \"V1126 09:38:32.090000 437 <file>:<line>] <message>\")",
                path };
        return log;
    }
};

RunLogReader::RunLogReader(std::string path, std::function<std::unique_ptr<LogRunSink>()> sinks)
    : m(new Impl)
{
    m->path = std::move(path);
    m->sinks = std::move(sinks);
}

const Error* RunLogReader::error() const
{
    return m->error ? &*m->error : nullptr;
}

RunLogReader::~RunLogReader()
{
    delete m;
}

void RunLogReader::feed(std::string_view line)
{
    m->feed(line);
}

Result<RunLog> RunLogReader::finish()
{
    return m->finish();
}

Result<RunLog> readRunLogText(std::string_view text, const std::string& path)
{
    RunLogReader reader(path);
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        reader.feed(text.substr(pos, end - pos));
        pos = end + 1;
    }
    return reader.finish();
}

Result<RunLog> readRunLog(const std::string& path, const RunLogOptions& options)
{
    auto file = InputFile::open(path);
    if (!file)
        return file.error();
    const uint64_t total = file->size();
    RunLogReader reader(path, options.sinks);
    std::string carry;
    std::vector<char> buf(1 << 20);
    uint64_t done = 0;
    for (;;) {
        const long long n = file->read(buf.data(), buf.size());
        if (n < 0)
            return Error { ErrorCode::Io, "read failed after " + std::to_string(done) + " bytes", path };
        if (n == 0)
            break;
        done += uint64_t(n);
        std::string_view chunk(buf.data(), size_t(n));
        size_t pos = 0;
        while (pos < chunk.size()) {
            const size_t end = chunk.find('\n', pos);
            if (end == std::string_view::npos) {
                if (carry.size() < kMaxLineBytes + 1)
                    carry.append(chunk.substr(pos, std::min(chunk.size() - pos, kMaxLineBytes + 1 - carry.size())));
                break;
            }
            if (carry.empty()) {
                reader.feed(chunk.substr(pos, end - pos));
            } else {
                if (carry.size() < kMaxLineBytes + 1)
                    carry.append(chunk.substr(pos, std::min(end - pos, kMaxLineBytes + 1 - carry.size())));
                reader.feed(carry);
                carry.clear();
            }
            pos = end + 1;
        }
        if (const Error* e = reader.error())
            return *e;
        if (options.progress && !options.progress(done, total))
            return Error { ErrorCode::Cancelled, "cancelled after " + std::to_string(done) + " bytes", path };
    }
    if (!carry.empty())
        reader.feed(carry);
    return reader.finish();
}

} // namespace engine::ingest
