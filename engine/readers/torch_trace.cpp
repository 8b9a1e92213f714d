// readTorchTrace: PyTorch's structured trace log (TORCH_TRACE), streamed record by record
// (torch_trace.h, docs/torch-trace.md).
#include "engine/readers/torch_trace.h"

#include "engine/core/file_io.h"
#include "engine/core/md5.h"
#include "engine/core/text_codec.h"
#include "engine/readers/torch_trace_json.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <new>
#include <nlohmann/json.hpp>
#include <string_view>
#include <tuple>

namespace engine::readers::trace {

namespace fs = std::filesystem;
using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// CompileId

// tlparse's convention (and torch._guards.CompileId.__str__): "<frame>/<frame_compile>", then
// "_<attempt>" when attempt > 0, and the prefix "!<compiled_autograd_id>/" for compiled autograd.
std::string CompileId::text() const
{
    std::string s;
    if (compiledAutograd)
        s = "!" + std::to_string(*compiledAutograd) + "/";
    if (!valid())
        return compiledAutograd ? s + "-/-" : std::string("-");
    s += std::to_string(frame) + "/" + std::to_string(frameCompile);
    if (attempt > 0)
        s += "_" + std::to_string(attempt);
    return s;
}

bool CompileId::operator<(const CompileId& o) const
{
    return std::make_tuple(compiledAutograd.value_or(-1), frame, frameCompile, attempt)
        < std::make_tuple(o.compiledAutograd.value_or(-1), o.frame, o.frameCompile, o.attempt);
}

bool CompileId::operator==(const CompileId& o) const
{
    return frame == o.frame && frameCompile == o.frameCompile && attempt == o.attempt
        && compiledAutograd == o.compiledAutograd;
}

const TraceCompile* TorchTrace::find(const CompileId& id) const
{
    for (const TraceCompile& c : compiles)
        if (c.id == id)
            return &c;
    return nullptr;
}

using namespace detail;

namespace {

constexpr size_t kMaxHeaderLine = size_t(4) << 20; ///< an envelope longer than this is skipped
constexpr size_t kMaxDiagnostics = 1000;
constexpr uint64_t kProgressStep = uint64_t(1) << 20;

// Envelope keys that are not the record's kind (torch/_logging/_internal.py trace_structured
// refuses these names as kinds).
bool isMetaKey(const std::string& k)
{
    static const char* const meta[] = { "frame_id", "frame_compile_id", "attempt", "compiled_autograd_id",
        "has_payload", "rank", "stack", "severity", "timestamp", "pathname", "thread" };
    for (const char* m : meta)
        if (k == m)
            return true;
    return false;
}

bool isGraphKind(const std::string& k)
{
    static const char* const graphs[] = { "dynamo_output_graph", "aot_inference_graph", "aot_forward_graph",
        "aot_backward_graph", "aot_joint_graph", "inductor_pre_grad_graph", "inductor_post_grad_graph",
        "optimize_ddp_split_graph", "compiled_autograd_graph", "graph_dump" };
    for (const char* g : graphs)
        if (k == g)
            return true;
    return false;
}

// Where the JSON envelope starts in a glog header line
//   [rank0]:V1126 08:52:02.716000 457 torch/_dynamo/convert_frame.py:276] {...}
// (TorchLogsFormatter in torch/_logging/_internal.py: rank prefix, level letter, MMDD, time, pid,
// path:line, "]", an optional trace id, then " " and the JSON); npos when it is not such a line.
size_t envelopeStart(std::string_view line)
{
    size_t p = 0;
    if (line.compare(0, 5, "[rank") == 0) {
        const size_t close = line.find("]:");
        if (close == std::string_view::npos || close > 16)
            return std::string_view::npos;
        p = close + 2;
    }
    if (p + 6 > line.size() || std::strchr("IWEVDC", line[p]) == nullptr || line[p] == 0)
        return std::string_view::npos;
    for (size_t i = 1; i <= 4; ++i)
        if (!isDigit(line[p + i]))
            return std::string_view::npos;
    if (line[p + 5] != ' ')
        return std::string_view::npos;
    const size_t bracket = line.find("] ", p + 6);
    if (bracket == std::string_view::npos || bracket > p + 4096)
        return std::string_view::npos;
    const size_t brace = line.find('{', bracket);
    if (brace == std::string_view::npos || brace > bracket + 256)
        return std::string_view::npos;
    return brace;
}

// ---------------------------------------------------------------------------------------------
// Streaming lines in fixed chunks: a line longer than the caller keeps is read through, not held.

class LineReader {
public:
    explicit LineReader(std::istream& in)
        : m_in(in)
        , m_buffer(size_t(1) << 16)
    {
    }

    /// The next byte without taking it; -1 at the end.
    int peek()
    {
        if (m_pos == m_end && !fill())
            return -1;
        return static_cast<unsigned char>(m_buffer[m_pos]);
    }

    void skip()
    {
        if (peek() >= 0) {
            ++m_pos;
            ++m_offset;
        }
    }

    /// Hands the rest of the current line, without its '\n', to sink(data, size) in pieces. False when
    /// there was nothing left to read.
    template <typename Sink> bool readLine(Sink&& sink)
    {
        if (peek() < 0)
            return false;
        for (;;) {
            if (m_pos == m_end && !fill())
                return true;
            const char* start = m_buffer.data() + m_pos;
            const size_t avail = m_end - m_pos;
            const void* nl = std::memchr(start, '\n', avail);
            const size_t n = nl ? size_t(static_cast<const char*>(nl) - start) : avail;
            if (n > 0)
                sink(start, n);
            m_pos += n;
            m_offset += n;
            if (nl) {
                ++m_pos;
                ++m_offset;
                return true;
            }
        }
    }

    uint64_t offset() const { return m_offset; }
    bool failed() const { return m_in.bad(); }

private:
    bool fill()
    {
        if (!m_in)
            return false;
        m_in.read(m_buffer.data(), std::streamsize(m_buffer.size()));
        m_pos = 0;
        m_end = size_t(m_in.gcount());
        return m_end > 0;
    }

    std::istream& m_in;
    std::vector<char> m_buffer;
    size_t m_pos = 0;
    size_t m_end = 0;
    uint64_t m_offset = 0;
};

// ---------------------------------------------------------------------------------------------

struct OpenSpan {
    long compile; ///< index in TorchTrace::compiles; -1: TorchTrace::spans
    size_t span;
};

class TraceReader {
public:
    TraceReader(std::string path, const TraceReadOptions& options)
        : m_path(std::move(path))
        , m_options(options)
    {
        m_trace.path = m_path;
    }

    Result<TorchTrace> run();

private:
    struct Record {
        json envelope;
        TracePlace place;
        std::string kind;
        CompileId id;
        bool expectsPayload = false;
        std::string md5; ///< has_payload
        Md5 hash;
        std::string payload;
        uint64_t payloadBytes = 0; ///< all of it, also what was not kept
        uint64_t payloadLines = 0;
        bool cut = false;
        bool md5Ok = true;
    };

    void diagnostic(uint64_t line, std::string message)
    {
        if (m_trace.diagnostics.size() < kMaxDiagnostics)
            m_trace.diagnostics.push_back({ line, std::move(message) });
        else if (m_trace.diagnostics.size() == kMaxDiagnostics)
            m_trace.diagnostics.push_back({ line, "more diagnostics not shown" });
    }
    Error errorAt(ErrorCode code, uint64_t line, const std::string& message) const
    {
        return makeError(code, message, m_path + ":" + std::to_string(line));
    }

    bool startRecord(const std::string& header, uint64_t line, uint64_t offset);
    void finishRecord();
    void handle(Record& r);
    TraceCompile& compileFor(const Record& r);
    void addSpan(const Record& r, long compile);

    std::string m_path;
    const TraceReadOptions& m_options;
    TorchTrace m_trace;
    std::optional<Record> m_record;
    std::map<CompileId, size_t> m_compileIndex;
    std::map<int64_t, std::string> m_strings; ///< the "str" table: index -> file name
    /// describe_tensor per compile, waiting for its describe_source: (compile, describer, id)
    std::map<std::tuple<size_t, int64_t, int64_t>, TraceSource> m_tensors;
    std::map<std::tuple<long, std::string>, std::vector<OpenSpan>> m_open;
};

bool TraceReader::startRecord(const std::string& header, uint64_t line, uint64_t offset)
{
    const size_t start = envelopeStart(header);
    if (start == std::string::npos)
        return false;
    json env = parseJson(std::string_view(header).substr(start));
    if (env.is_discarded() || !env.is_object())
        return false;
    Record r;
    r.place = { line, offset };
    for (auto it = env.begin(); it != env.end(); ++it)
        if (!isMetaKey(it.key())) {
            r.kind = it.key();
            break;
        }
    const auto frame = intAt(env, "frame_id");
    const auto frameCompile = intAt(env, "frame_compile_id");
    if (frame && frameCompile && *frame >= 0 && *frameCompile >= 0) {
        r.id.frame = clampInt(*frame);
        r.id.frameCompile = clampInt(*frameCompile);
        r.id.attempt = clampInt(intAt(env, "attempt").value_or(0));
    }
    if (const auto ca = intAt(env, "compiled_autograd_id"))
        r.id.compiledAutograd = clampInt(*ca);
    if (const json* h = member(env, "has_payload")) {
        r.expectsPayload = true;
        r.md5 = h->is_string() ? h->get<std::string>() : std::string();
    }
    if (!m_trace.rank)
        if (const auto rank = intAt(env, "rank"))
            m_trace.rank = clampInt(*rank);
    r.envelope = std::move(env);
    m_record = std::move(r);
    return true;
}

void TraceReader::finishRecord()
{
    if (!m_record)
        return;
    Record& r = *m_record;
    ++m_trace.records;
    if (r.expectsPayload) {
        r.md5Ok = r.hash.hexDigest() == r.md5;
        if (r.payloadLines == 0)
            diagnostic(r.place.line, "record '" + r.kind + "' announces a payload but has none (cut log?)");
        else if (!r.md5Ok)
            diagnostic(r.place.line,
                "payload of '" + r.kind + "' does not match its md5 " + r.md5.substr(0, 32) + " (cut or edited)");
    }
    try {
        handle(r);
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        diagnostic(r.place.line, "record '" + r.kind + "' skipped: " + e.what());
    }
    m_record.reset();
}

TraceCompile& TraceReader::compileFor(const Record& r)
{
    auto it = m_compileIndex.find(r.id);
    if (it == m_compileIndex.end()) {
        it = m_compileIndex.emplace(r.id, m_trace.compiles.size()).first;
        TraceCompile c;
        c.id = r.id;
        c.first = r.place;
        m_trace.compiles.push_back(std::move(c));
    }
    return m_trace.compiles[it->second];
}

void TraceReader::addSpan(const Record& r, long compile)
{
    const json ev = parseJson(r.payload);
    if (ev.is_discarded() || !ev.is_object()) {
        diagnostic(r.place.line, "chromium_event payload is not a JSON object");
        return;
    }
    const std::string name = strAt(ev, "name");
    const std::string ph = strAt(ev, "ph");
    const double ts = numberAt(ev, "ts").value_or(0);
    std::vector<TraceSpan>& spans = compile < 0 ? m_trace.spans : m_trace.compiles[size_t(compile)].spans;
    auto readArgs = [&](TraceSpan& s) {
        if (const json* args = member(ev, "args"); args && args->is_object())
            // The cache events' "components" (hundreds of KB, also in the fx_graph_cache_* /
            // aotautograd_cache_* artifacts) would otherwise be a third of what a trace holds.
            for (auto it = args->begin(); it != args->end(); ++it)
                s.args[it.key()] = textOfCapped(*it, m_options.maxSpanArgBytes);
    };
    if (ph == "B" || ph == "X" || ph == "i" || ph == "I" || ph == "n") {
        TraceSpan s;
        s.name = name;
        s.category = strAt(ev, "cat");
        s.startUs = s.endUs = ts;
        readArgs(s);
        if (ph == "X") {
            s.endUs = ts + numberAt(ev, "dur").value_or(0);
            s.ended = true;
        } else if (ph != "B") {
            s.ended = true;
        }
        spans.push_back(std::move(s));
        if (ph == "B")
            m_open[{ compile, name }].push_back({ compile, spans.size() - 1 });
    } else if (ph == "E") {
        auto it = m_open.find({ compile, name });
        if (it == m_open.end() || it->second.empty()) {
            diagnostic(r.place.line, "chromium_event end of '" + name + "' without its begin");
            return;
        }
        TraceSpan& s = spans[it->second.back().span];
        it->second.pop_back();
        s.endUs = std::max(ts, s.startUs);
        s.ended = true;
        readArgs(s);
    }
}

void TraceReader::handle(Record& r)
{
    const std::string& kind = r.kind;
    const json* value = member(r.envelope, kind.c_str());
    static const json kNull;
    const json& v = value ? *value : kNull;

    if (kind == "str") { // {"str": [filename, index]}: the table dynamo_start's stacks index
        if (v.is_array() && v.size() == 2 && v[0].is_string())
            if (const auto idx = intOf(v[1]))
                m_strings[*idx] = v[0].get<std::string>();
        return;
    }
    if (kind == "compilation_metrics_runtime") {
        m_trace.runtimeMetricsJson.push_back(r.expectsPayload ? r.payload : textOf(v));
        if (r.id.valid())
            ++compileFor(r).records;
        return;
    }
    const bool inCompile = r.id.valid();
    if (kind == "chromium_event") {
        long compile = -1;
        if (inCompile) {
            TraceCompile& c = compileFor(r);
            ++c.records;
            compile = long(m_compileIndex[r.id]);
        }
        addSpan(r, compile);
        return;
    }
    if (!inCompile)
        return; // a record of no compile that is not a span: counted only
    TraceCompile& c = compileFor(r);
    const size_t compileIndex = m_compileIndex[r.id];
    ++c.records;

    TracePayload p;
    p.kind = kind;
    p.name = kind;
    p.place = r.place;
    if (r.expectsPayload) {
        p.text = std::move(r.payload);
        // The payload grew line by line (capacity doubling): up to 2x its size. Kept texts are most
        // of what a trace holds (63 of a 112 MiB log's bytes in bench/trace_bench.cpp), so trim them.
        p.text.shrink_to_fit();
        p.md5Ok = r.md5Ok;
    } else if (value) {
        p.text = textOf(v); // a record without a payload: its metadata, held to the same limit
        if (p.text.size() > m_options.maxPayloadBytes) {
            diagnostic(r.place.line,
                "metadata of '" + kind + "' (" + std::to_string(p.text.size()) + " bytes) cut to "
                    + std::to_string(m_options.maxPayloadBytes));
            p.text.resize(size_t(m_options.maxPayloadBytes));
        }
    }

    if (kind == "dynamo_start") {
        if (const json* stack = member(v, "stack"); stack && stack->is_array())
            for (const json& f : *stack) {
                std::string file;
                if (const json* fn = member(f, "filename")) {
                    if (fn->is_string())
                        file = fn->get<std::string>();
                    else if (const auto idx = intOf(*fn)) {
                        auto s = m_strings.find(*idx);
                        file = s != m_strings.end() ? s->second : "<str " + std::to_string(*idx) + ">";
                    }
                }
                c.stack.push_back(
                    file + ":" + std::to_string(intAt(f, "line").value_or(0)) + " in " + strAt(f, "name"));
            }
        return;
    }
    if (kind == "describe_storage")
        return;
    if (kind == "describe_tensor") {
        TraceSource s;
        s.describerId = clampInt(intAt(v, "describer_id").value_or(0));
        s.id = clampInt(intAt(v, "id").value_or(0));
        s.dtype = strAt(v, "dtype");
        s.device = deviceText(strAt(v, "device"));
        readDims(member(v, "size"), s.size, &s.sizeText);
        readDims(member(v, "stride"), s.stride, nullptr);
        s.isParameter = boolAt(v, "is_parameter");
        s.requiresGrad = boolAt(v, "requires_grad");
        m_tensors[{ compileIndex, s.describerId, s.id }] = std::move(s);
        return;
    }
    if (kind == "describe_source") {
        const int describer = clampInt(intAt(v, "describer_id").value_or(0));
        const int id = clampInt(intAt(v, "id").value_or(0));
        TraceSource s;
        auto it = m_tensors.find({ compileIndex, describer, id });
        if (it != m_tensors.end()) {
            s = it->second;
        } else {
            s.describerId = describer;
            s.id = id;
        }
        s.source = strAt(v, "source");
        c.sources.push_back(std::move(s));
        return;
    }
    if (kind == "create_symbol") {
        TraceSymbol s;
        s.symbol = strAt(v, "symbol");
        s.source = strAt(v, "source");
        s.hint = intAt(v, "val");
        s.place = r.place;
        c.symbols.push_back(std::move(s));
        return;
    }
    if (kind == "compilation_metrics") {
        c.metricsJson = r.expectsPayload ? p.text : textOf(v);
        const json& m = r.expectsPayload ? parseJson(c.metricsJson) : v;
        if (const auto t = numberAt(m, "entire_frame_compile_time_s"))
            c.compileSeconds = *t;
        c.failType = strAt(m, "fail_type");
        c.failReason = strAt(m, "fail_reason");
        return;
    }
    if (kind == "dynamo_cpp_guards_str") {
        c.guards = std::move(p.text);
        return;
    }
    if (kind == "artifact" || kind == "graph_dump") {
        p.name = strAt(v, "name");
        if (p.name.empty())
            p.name = kind;
        p.encoding = strAt(v, "encoding");
    }
    if (isGraphKind(kind) || (kind == "artifact" && endsWith(p.name, "_graph"))) {
        c.graphs.push_back(std::move(p));
        return;
    }
    if (kind == "inductor_output_code" && !c.outputCode) {
        p.filename = strAt(v, "filename");
        c.outputCode = std::move(p);
        return;
    }
    if (kind == "artifact" && p.name == "recompile_reasons")
        c.recompileReasons = recompileReasons(p.text);
    if (kind == "artifact" && endsWith(p.name, "fw_metadata"))
        c.staticInputIndices = staticInputIndices(p.text);
    c.artifacts.push_back(std::move(p));
}

Result<TorchTrace> TraceReader::run()
{
    std::error_code ec;
    const fs::file_status st = fs::status(m_path, ec);
    if (ec || !fs::exists(st))
        return makeError(ErrorCode::Io, "cannot open the trace log (no such file)", m_path);
    if (fs::is_directory(st))
        return makeError(ErrorCode::Io, "is a folder, not a trace log file", m_path);
    auto file = InputFile::open(m_path); // refuses a FIFO or a device by name (engine/core/file_io.h)
    if (!file)
        return file.error();
    const uint64_t total = file->size();
    InputStream in(std::move(*file));

    LineReader lines(in);
    uint64_t lineNo = 0;
    uint64_t nextProgress = 0;
    bool sawHeader = false;
    std::string header;
    const uint64_t maxPayload = m_options.maxPayloadBytes;

    for (;;) {
        if (m_options.progress && lines.offset() >= nextProgress) {
            if (!m_options.progress(lines.offset(), total))
                return makeError(ErrorCode::Cancelled, "cancelled", m_path);
            nextProgress = lines.offset() + kProgressStep;
        }
        const int first = lines.peek();
        if (first < 0)
            break;
        ++lineNo;
        const uint64_t lineOffset = lines.offset();

        if (first == '\t' && m_record && m_record->expectsPayload) {
            // A payload line: tab removed, lines joined with '\n', hashed whole, kept up to the limit.
            Record& r = *m_record;
            lines.skip();
            if (r.payloadLines++ > 0) {
                r.hash.update("\n");
                ++r.payloadBytes;
                if (r.payload.size() < maxPayload)
                    r.payload += '\n';
            }
            lines.readLine([&](const char* data, size_t n) {
                r.hash.update(std::string_view(data, n));
                r.payloadBytes += n;
                if (r.payload.size() < maxPayload)
                    r.payload.append(data, size_t(std::min<uint64_t>(n, maxPayload - r.payload.size())));
                else
                    r.cut = true;
            });
            if (r.payload.size() >= maxPayload && r.payloadBytes > maxPayload && !r.cut)
                r.cut = true;
            continue;
        }

        // Any other line ends the record before it.
        if (m_record) {
            if (m_record->cut)
                diagnostic(m_record->place.line,
                    "payload of " + std::to_string(m_record->payloadBytes) + " bytes cut to "
                        + std::to_string(maxPayload));
            finishRecord();
        }
        header.clear();
        bool longLine = false;
        lines.readLine([&](const char* data, size_t n) {
            if (header.size() + n <= kMaxHeaderLine)
                header.append(data, n);
            else
                longLine = true;
        });
        if (!header.empty() && header.back() == '\r')
            header.pop_back();
        if (header.empty() && !longLine)
            continue;
        if (longLine || first == '\t' || !startRecord(header, lineNo, lineOffset)) {
            if (!sawHeader)
                return errorAt(ErrorCode::ParseError, lineNo,
                    longLine ? "not a TORCH_TRACE log: the first line is longer than "
                            + std::to_string(kMaxHeaderLine >> 20) + " MiB"
                             : "not a TORCH_TRACE log: the first line is not a record header "
                               "('V1126 08:52:02.716000 457 file.py:12] {json}')");
            diagnostic(lineNo,
                longLine            ? "line too long; skipped"
                    : first == '\t' ? "payload line of no record that has a payload; skipped"
                                    : "not a record header; skipped");
            continue;
        }
        sawHeader = true;
    }
    if (m_record) {
        if (m_record->cut)
            diagnostic(m_record->place.line,
                "payload of " + std::to_string(m_record->payloadBytes) + " bytes cut to " + std::to_string(maxPayload));
        finishRecord();
    }
    if (lines.failed())
        return makeError(ErrorCode::Io, "read error", m_path);
    for (const auto& [key, open] : m_open)
        if (!open.empty())
            diagnostic(0, std::to_string(open.size()) + " span(s) '" + std::get<1>(key) + "' never ended (cut log?)");
    m_trace.bytes = lines.offset();
    if (!sawHeader)
        diagnostic(0, "empty trace log");
    if (m_options.progress && !m_options.progress(m_trace.bytes, total))
        return makeError(ErrorCode::Cancelled, "cancelled", m_path);
    return std::move(m_trace);
}

// "dedicated_log_torch_trace_rank_1_xxxx.log" -> 1
std::optional<int> rankOfName(const std::string& fileName)
{
    const size_t at = fileName.find("rank_");
    if (at == std::string::npos)
        return std::nullopt;
    size_t i = at + 5;
    int64_t v = 0;
    size_t digits = 0;
    while (i < fileName.size() && isDigit(fileName[i]) && digits < 9) {
        v = v * 10 + (fileName[i++] - '0');
        ++digits;
    }
    if (digits == 0)
        return std::nullopt;
    return int(v);
}

} // namespace

bool looksLikeTorchTrace(const std::string& head)
{
    size_t p = 0;
    while (p < head.size()) {
        size_t e = head.find('\n', p);
        const bool complete = e != std::string::npos;
        if (!complete)
            e = head.size();
        std::string_view line(head.data() + p, e - p);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (line.empty()) {
            p = e + 1;
            continue;
        }
        const size_t start = envelopeStart(line);
        if (start == std::string_view::npos)
            return false;
        const std::string_view body = line.substr(start);
        const json env = parseJson(body);
        if (!env.is_discarded()) {
            if (!env.is_object())
                return false;
            for (auto it = env.begin(); it != env.end(); ++it)
                if (!isMetaKey(it.key()) || it.key() == "frame_id")
                    return true;
            return false;
        }
        // The head may end inside the first envelope: a JSON object's opening key is enough.
        return !complete && body.size() > 2 && body[1] == '"';
    }
    return false;
}

Result<TorchTrace> readTorchTrace(const std::string& path, const TraceReadOptions& options)
{
    try {
        TraceReader reader(path, options);
        auto r = reader.run();
        if (r.ok()) {
            if (const auto rank = rankOfName(fs::path(path).filename().string()))
                r->rank = rank;
        }
        return r;
    } catch (const std::bad_alloc&) {
        return makeError(ErrorCode::OutOfMemory, "out of memory reading the trace log", path);
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Internal, std::string("reading the trace log failed: ") + e.what(), path);
    }
}

Result<std::vector<TorchTrace>> readTorchTraceDir(const std::string& path, const TraceReadOptions& options)
{
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!ec && fs::is_regular_file(st)) {
        auto one = readTorchTrace(path, options);
        if (!one.ok())
            return one.error();
        std::vector<TorchTrace> out;
        out.push_back(std::move(one.value()));
        return out;
    }
    if (ec || !fs::is_directory(st))
        return makeError(ErrorCode::Io, "not a TORCH_TRACE folder or log file", path);

    std::vector<std::string> files;
    fs::directory_iterator it(path, ec), end;
    if (ec)
        return makeError(ErrorCode::Io, "cannot list the folder: " + ec.message(), path);
    for (; it != end; it.increment(ec)) {
        if (ec)
            break;
        std::error_code fec;
        if (!it->is_regular_file(fec) || fec)
            continue;
        const std::string name = it->path().filename().string();
        if (!endsWith(name, ".log"))
            continue;
        auto in = InputFile::open(it->path().string()); // a path swapped for a FIFO is refused, not read
        if (!in)
            continue;
        const std::string head = in->head(64 * 1024);
        if (looksLikeTorchTrace(head))
            files.push_back(it->path().string());
    }
    if (files.empty())
        return makeError(
            ErrorCode::NotFound, "no TORCH_TRACE log (dedicated_log_torch_trace_*.log) in the folder", path);

    std::vector<TorchTrace> out;
    for (const std::string& f : files) {
        auto r = readTorchTrace(f, options);
        if (!r.ok())
            return r.error();
        out.push_back(std::move(r.value()));
    }
    std::sort(out.begin(), out.end(), [](const TorchTrace& a, const TorchTrace& b) {
        const int ra = a.rank.value_or(INT32_MAX), rb = b.rank.value_or(INT32_MAX);
        return ra != rb ? ra < rb : a.path < b.path;
    });
    return out;
}

} // namespace engine::readers::trace
