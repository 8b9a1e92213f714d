// A TORCH_TRACE's compiles and spans (trace_store.h): tables trace_compiles and trace_spans.
#include "storage/trace_store.h"

#include "engine/core/json_text.h"
#include "storage/store_util.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

namespace storage {

using namespace detail;
using engine::readers::trace::TorchTrace;
using engine::readers::trace::TraceCompile;
using engine::readers::trace::TraceSpan;

namespace {

std::string phaseOf(const TraceCompile& c)
{
    for (const auto& g : c.graphs) {
        if (g.name == "aot_inference_graph")
            return "inference";
        if (g.name == "aot_forward_graph")
            return "forward";
        if (g.name == "aot_backward_graph")
            return "backward";
    }
    return "";
}

std::string sourcesJson(const TraceCompile& c)
{
    nlohmann::json a = nlohmann::json::array();
    for (const auto& s : c.sources)
        a.push_back({ { "source", s.source }, { "dtype", s.dtype }, { "size", s.sizeText },
            { "is_parameter", s.isParameter } });
    return engine::jsonText(a, -1);
}

std::string symbolsJson(const TraceCompile& c)
{
    nlohmann::json a = nlohmann::json::array();
    for (const auto& s : c.symbols) {
        nlohmann::json o = { { "symbol", s.symbol }, { "source", s.source } };
        o["hint"] = s.hint ? nlohmann::json(*s.hint) : nlohmann::json(nullptr);
        a.push_back(std::move(o));
    }
    return engine::jsonText(a, -1);
}

std::string artifactNames(const TraceCompile& c)
{
    std::vector<std::string> names;
    for (const auto& a : c.artifacts)
        names.push_back(a.name);
    return jsonStringArray(names);
}

std::string cappedGuards(const std::string& guards)
{
    if (guards.size() <= kMaxTraceGuardsBytes)
        return guards;
    return guards.substr(0, kMaxTraceGuardsBytes) + "\n... (cut: " + std::to_string(guards.size())
        + " bytes in the log, the first " + std::to_string(kMaxTraceGuardsBytes) + " kept)";
}

Statement& bindRank(Statement& s, int index, std::optional<int> rank)
{
    return rank ? s.bind(index, int64_t(*rank)) : s.bindNull(index);
}

Result<void> writeSpans(WriteContext& ctx, Statement& s, int64_t sourceId, std::optional<int> rank,
    const std::string* compileId, const std::vector<TraceSpan>& spans)
{
    for (const TraceSpan& span : spans) {
        s.bind(1, sourceId);
        bindRank(s, 2, rank);
        if (compileId)
            s.bind(3, std::string_view(*compileId));
        else
            s.bindNull(3);
        s.bind(4, std::string_view(span.name)).bind(5, std::string_view(span.category));
        s.bind(6, span.startUs).bind(7, span.endUs);
        if (auto r = insertRow(ctx, s); !r)
            return r;
    }
    return {};
}

std::vector<std::string> parseList(const std::string& text)
{
    auto v = parseStringArray(text);
    return v ? std::move(*v) : std::vector<std::string> {};
}

nlohmann::json parseJson(const std::string& text)
{
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    return j.is_discarded() ? nlohmann::json() : j;
}

std::string str(const nlohmann::json& o, const char* key)
{
    auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

std::string traceCompileGroup(const TraceCompile& compile, std::optional<int> rank, bool severalRanks)
{
    std::string model
        = (severalRanks && rank ? "rank " + std::to_string(*rank) + ": " : std::string()) + compile.id.text();
    const std::string phase = phaseOf(compile);
    return phase.empty() ? model : model + "/" + phase;
}

Result<void> writeTraceCompiles(WriteContext& ctx, int64_t sourceId, const std::vector<TorchTrace>& traces)
{
    std::set<int> ranks;
    for (const auto& t : traces)
        ranks.insert(t.rank ? *t.rank : -1);
    const bool severalRanks = ranks.size() > 1;
    auto c = ctx.db().prepare(
        "INSERT INTO trace_compiles(source_id, rank, log, compile_id, frame, frame_compile, attempt, grp, phase, "
        "first_line, start_us, end_us, compile_seconds, fail_type, fail_reason, graph_count, recompile_reasons, "
        "metrics, guards, sources, symbols, stack, artifacts) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!c)
        return c.error();
    auto s = ctx.db().prepare("INSERT INTO trace_spans(source_id, rank, compile_id, name, category, start_us, end_us) "
                              "VALUES (?, ?, ?, ?, ?, ?, ?)");
    if (!s)
        return s.error();
    for (const TorchTrace& t : traces) {
        for (const TraceCompile& compile : t.compiles) {
            const std::string id = compile.id.text();
            c->bind(1, sourceId);
            bindRank(*c, 2, t.rank);
            c->bind(3, std::string_view(t.path));
            c->bind(4, std::string_view(id)).bind(5, int64_t(compile.id.frame));
            c->bind(6, int64_t(compile.id.frameCompile)).bind(7, int64_t(compile.id.attempt));
            c->bind(8, std::string_view(traceCompileGroup(compile, t.rank, severalRanks)));
            c->bind(9, std::string_view(phaseOf(compile))).bind(10, int64_t(compile.first.line));
            double start = 0, end = 0;
            bool any = false;
            for (const TraceSpan& span : compile.spans) {
                start = any ? std::min(start, span.startUs) : span.startUs;
                end = any ? std::max(end, span.endUs) : span.endUs;
                any = true;
            }
            if (any)
                c->bind(11, start).bind(12, end);
            else
                c->bindNull(11).bindNull(12);
            if (compile.compileSeconds >= 0)
                c->bind(13, compile.compileSeconds);
            else
                c->bindNull(13);
            c->bind(14, std::string_view(compile.failType)).bind(15, std::string_view(compile.failReason));
            c->bind(16, int64_t(compile.graphs.size()))
                .bind(17, std::string_view(jsonStringArray(compile.recompileReasons)));
            c->bind(18, std::string_view(compile.metricsJson)).bind(19, std::string_view(cappedGuards(compile.guards)));
            c->bind(20, std::string_view(sourcesJson(compile))).bind(21, std::string_view(symbolsJson(compile)));
            c->bind(22, std::string_view(jsonStringArray(compile.stack)))
                .bind(23, std::string_view(artifactNames(compile)));
            if (auto r = insertRow(ctx, *c); !r)
                return r;
            if (auto r = writeSpans(ctx, *s, sourceId, t.rank, &id, compile.spans); !r)
                return r;
        }
        if (auto r = writeSpans(ctx, *s, sourceId, t.rank, nullptr, t.spans); !r)
            return r;
    }
    return {};
}

std::string traceCacheSummary(const std::string& metricsJson)
{
    if (metricsJson.empty())
        return "";
    const nlohmann::json m = parseJson(metricsJson);
    if (!m.is_object())
        return "";
    auto count = [&](const char* key) {
        auto it = m.find(key);
        return it != m.end() && it->is_number_integer() ? it->get<int64_t>() : int64_t(0);
    };
    auto has = [&](const char* key) {
        auto it = m.find(key);
        return it != m.end() && it->is_number();
    };
    std::vector<std::string> parts;
    auto part = [&](const char* what, const char* localHit, const char* remoteHit, const char* localMiss,
                    const char* remoteMiss) {
        if (!has(localHit) && !has(remoteHit) && !has(localMiss) && !has(remoteMiss))
            return;
        const int64_t hits = count(localHit) + count(remoteHit), misses = count(localMiss) + count(remoteMiss);
        if (hits == 0 && misses == 0)
            return;
        parts.push_back(std::string(what) + (hits && misses ? " hit+miss" : hits ? " hit" : " miss"));
    };
    part("FX", "inductor_fx_local_cache_hit_count", "inductor_fx_remote_cache_hit_count",
        "inductor_fx_local_cache_miss_count", "inductor_fx_remote_cache_miss_count");
    part("AOT", "aotautograd_local_cache_hit_count", "aotautograd_remote_cache_hit_count",
        "aotautograd_local_cache_miss_count", "aotautograd_remote_cache_miss_count");
    std::string out;
    for (const auto& p : parts)
        out += (out.empty() ? "" : ", ") + p;
    return out;
}

Result<std::vector<StoredTraceCompile>> readTraceCompiles(Database& db, std::optional<int64_t> sourceId)
{
    auto s = db.prepare(
        "SELECT id, source_id, rank, compile_id, frame, frame_compile, attempt, grp, phase, first_line, start_us, "
        "end_us, compile_seconds, fail_type, fail_reason, graph_count, recompile_reasons, metrics, guards, sources, "
        "symbols, stack, artifacts, (SELECT path FROM sources WHERE sources.id = source_id), log "
        "FROM trace_compiles WHERE ?1 IS NULL OR source_id = ?1 ORDER BY source_id, rank, id");
    if (!s)
        return s.error();
    bindOptional(*s, 1, sourceId);
    std::vector<StoredTraceCompile> out;
    auto r = forEachRow(*s, [&]() -> Result<void> {
        StoredTraceCompile c;
        c.id = s->columnInt(0);
        c.sourceId = s->columnInt(1);
        if (auto rank = optionalInt(*s, 2))
            c.rank = int(*rank);
        c.compileId = s->columnText(3);
        c.frame = int(s->columnInt(4));
        c.frameCompile = int(s->columnInt(5));
        c.attempt = int(s->columnInt(6));
        c.group = s->columnText(7);
        c.phase = s->columnText(8);
        c.firstLine = s->columnInt(9);
        if (!s->columnIsNull(10))
            c.startUs = s->columnDouble(10);
        if (!s->columnIsNull(11))
            c.endUs = s->columnDouble(11);
        if (!s->columnIsNull(12))
            c.compileSeconds = s->columnDouble(12);
        c.failType = s->columnText(13);
        c.failReason = s->columnText(14);
        c.graphCount = int(s->columnInt(15));
        c.recompileReasons = parseList(s->columnText(16));
        c.metricsJson = s->columnText(17);
        c.guards = s->columnText(18);
        const nlohmann::json sources = parseJson(s->columnText(19));
        if (sources.is_array())
            for (const auto& o : sources)
                if (o.is_object()) {
                    StoredTraceSource src;
                    src.source = str(o, "source");
                    src.dtype = str(o, "dtype");
                    src.size = str(o, "size");
                    src.isParameter = o.value("is_parameter", false);
                    c.sources.push_back(std::move(src));
                }
        const nlohmann::json symbols = parseJson(s->columnText(20));
        if (symbols.is_array())
            for (const auto& o : symbols)
                if (o.is_object()) {
                    StoredTraceSymbol sym;
                    sym.symbol = str(o, "symbol");
                    sym.source = str(o, "source");
                    auto hint = o.find("hint");
                    if (hint != o.end() && hint->is_number_integer())
                        sym.hint = hint->get<int64_t>();
                    c.symbols.push_back(std::move(sym));
                }
        c.stack = parseList(s->columnText(21));
        c.artifacts = parseList(s->columnText(22));
        c.cache = traceCacheSummary(c.metricsJson);
        c.sourcePath = optionalText(*s, 23).value_or("");
        c.log = s->columnText(24);
        out.push_back(std::move(c));
        return {};
    });
    if (!r)
        return r.error();
    return out;
}

Result<std::vector<StoredTraceSpan>> readTraceSpans(Database& db, std::optional<int64_t> sourceId)
{
    auto s = db.prepare("SELECT source_id, rank, compile_id, name, category, start_us, end_us FROM trace_spans "
                        "WHERE ?1 IS NULL OR source_id = ?1 ORDER BY start_us, id");
    if (!s)
        return s.error();
    bindOptional(*s, 1, sourceId);
    std::vector<StoredTraceSpan> out;
    auto r = forEachRow(*s, [&]() -> Result<void> {
        StoredTraceSpan span;
        span.sourceId = s->columnInt(0);
        if (auto rank = optionalInt(*s, 1))
            span.rank = int(*rank);
        span.compileId = optionalText(*s, 2).value_or("");
        span.name = s->columnText(3);
        span.category = s->columnText(4);
        span.startUs = s->columnDouble(5);
        span.endUs = s->columnDouble(6);
        out.push_back(std::move(span));
        return {};
    });
    if (!r)
        return r.error();
    return out;
}

} // namespace storage
