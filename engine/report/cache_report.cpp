#include "engine/report/cache_report.h"

#include "engine/core/json_text.h"
#include "engine/graph/graph.h"
#include "engine/marshal/marshal_reader.h"

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

namespace engine::report {

using nlohmann::ordered_json;

namespace {

std::string modeText(uint32_t mode)
{
    char buf[8];
    std::snprintf(buf, sizeof buf, "%o", mode & 0777);
    return buf;
}

std::string joined(const std::vector<std::string>& items, const char* sep = ", ")
{
    std::string s;
    for (size_t i = 0; i < items.size(); ++i)
        s += (i ? sep : "") + items[i];
    return s;
}

std::string pad(std::string s, size_t width)
{
    if (s.size() < width)
        s.append(width - s.size(), ' ');
    return s;
}

std::string verdictLine(const cache::CacheFileReport& r)
{
    if (r.loads)
        return std::string("TorchAir (") + config::backendName(r.loader) + ") would load this cache.";
    const cache::CacheCheck* f = r.firstFailure();
    return std::string("TorchAir (") + config::backendName(r.loader) + ") would refuse it with "
        + (f ? f->exception + ": " + f->message : "an error") + ", delete its func folder and compile again.";
}

/// Counts of the graph's placeholders by input kind, and its node count.
std::string graphSummary(const Graph& g)
{
    std::map<std::string, int> kinds;
    int ops = 0;
    for (const Node& n : g.nodes) {
        if (n.op == NodeOp::Placeholder)
            ++kinds[inputKindName(n.inputKind)];
        else if (n.op == NodeOp::CallFunction)
            ++ops;
    }
    std::string s
        = g.id + ": " + std::to_string(g.nodes.size()) + " nodes (" + std::to_string(ops) + " calls); inputs:";
    for (const auto& [k, n] : kinds)
        s += " " + std::to_string(n) + " " + k;
    return s;
}

std::vector<std::string> constReprs(const marshal::Document& doc, const marshal::Code& code)
{
    std::vector<std::string> out;
    for (uint32_t c : code.consts)
        out.push_back(marshal::repr(doc, c, 200));
    return out;
}

ordered_json checksJson(const cache::CacheFileReport& r)
{
    ordered_json checks = ordered_json::array();
    for (const cache::CacheCheck& c : r.checks) {
        ordered_json j { { "check", c.name }, { "status", cache::statusName(c.status) } };
        if (!c.exception.empty())
            j["exception"] = c.exception;
        j["message"] = c.message;
        if (!c.detail.empty())
            j["detail"] = c.detail;
        checks.push_back(std::move(j));
    }
    return checks;
}

ordered_json artifactJson(const cache::CacheArtifact& a)
{
    ordered_json j;
    j["backend"] = config::backendName(a.backend);
    j["pickle_protocol"] = a.pickleProtocol;
    j["top_class"] = a.topClass;
    ordered_json classes = ordered_json::array();
    for (const pickle::Finding& f : a.classRefs)
        classes.push_back({ { "name", f.label() }, { "offset", f.offset }, { "count", f.count } });
    j["classes"] = classes;
    if (a.hasMeta)
        j["meta"] = { { "name", a.meta.name }, { "date", a.meta.date }, { "version", a.meta.version } };
    else
        j["meta"] = nullptr;
    const cache::CompiledFn& fn = a.compiledFn;
    ordered_json f { { "bytes", fn.bytes }, { "decoded", fn.decoded } };
    if (!fn.error.empty())
        f["error"] = fn.error;
    if (const marshal::Code* code = fn.decoded ? fn.code.rootCode() : nullptr) {
        f["name"] = code->name;
        f["qualname"] = code->qualname;
        f["filename"] = code->filename;
        f["first_line"] = code->firstLineNo;
        f["arguments"] = code->argumentNames();
        f["names"] = code->names;
        f["constants"] = constReprs(fn.code, *code);
        ordered_json nested = ordered_json::array();
        for (uint32_t n : code->nested)
            nested.push_back(fn.code.codes[n].qualname);
        f["nested"] = nested;
        ordered_json versions = ordered_json::array();
        for (const marshal::PyVersion& v : fn.versions.candidates)
            versions.push_back(v.text());
        f["python_versions"] = versions;
        f["python_reason"] = fn.versions.reason;
    }
    f["compiled_fns"] = fn.compiledFnNames;
    f["imported_modules"] = fn.importedModules;
    f["user_classes"] = fn.userClasses;
    j["compiled_fn"] = f;
    if (!a.hasCompiledFx) {
        j["compiled_fx"] = nullptr;
    } else {
        ordered_json fx;
        ordered_json inputs = ordered_json::array();
        for (const cache::SignatureInput& in : a.signature.inputs)
            inputs.push_back({ { "index", in.index }, { "name", in.name }, { "kind", in.kind }, { "source", in.source },
                { "example", in.example } });
        fx["signature"] = { { "well_formed", a.signature.wellFormed },
            { "graph_lines",
                a.signature.graphCode.empty()
                    ? 0
                    : std::count(a.signature.graphCode.begin(), a.signature.graphCode.end(), '\n') },
            { "inputs", inputs }, { "options", a.signature.options }, { "problems", a.signature.problems } };
        ordered_json params = ordered_json::array();
        for (const auto& [name, isParameter] : a.inputParameters)
            params.push_back({ { "source", name }, { "parameter", isParameter } });
        fx["input_parameters"] = params;
        fx["py_code_chars"] = a.pyCode.size();
        if (a.module) {
            const Graph& g = a.module->graph;
            ordered_json placeholders = ordered_json::array();
            int nodes = 0;
            for (const Node& n : g.nodes) {
                if (n.op == NodeOp::Placeholder)
                    placeholders.push_back({ { "name", n.name }, { "kind", inputKindName(n.inputKind) } });
                ++nodes;
            }
            ordered_json configs = ordered_json::object();
            for (const auto& [k, v] : a.module->compileConfigs)
                configs[k] = v;
            fx["graph"] = { { "id", g.id }, { "backend", config::backendName(a.module->backend) }, { "nodes", nodes },
                { "placeholders", placeholders }, { "compile_configs", configs },
                { "nodes_without_meta", a.module->nodesWithoutMeta } };
            ordered_json diags = ordered_json::array();
            for (const auto& d : a.module->diagnostics)
                diags.push_back(d.toString());
            fx["graph"]["diagnostics"] = diags;
        } else {
            fx["graph"] = nullptr;
            fx["graph_error"] = a.moduleError;
        }
        j["compiled_fx"] = fx;
    }
    j["problems"] = a.problems;
    return j;
}

ordered_json fileJson(const cache::CacheFileReport& r)
{
    ordered_json j;
    j["path"] = r.path;
    j["real_path"] = r.file.realPath;
    j["file"] = { { "exists", r.file.exists }, { "symlink", r.file.isSymlink },
        { "symlink_target", r.file.symlinkTarget }, { "size", r.file.size }, { "owner", r.file.owner },
        { "uid", r.file.uid }, { "mode", modeText(r.file.mode) } };
    j["loader"] = config::backendName(r.loader);
    j["loads"] = r.loads;
    j["checks"] = checksJson(r);
    j["log"] = r.log;
    if (r.artifact)
        j["artifact"] = artifactJson(*r.artifact);
    else
        j["read_error"] = r.readError;
    return j;
}

void checksText(std::string& out, const cache::CacheFileReport& r, const char* indent)
{
    for (const cache::CacheCheck& c : r.checks) {
        out += indent + pad(cache::statusName(c.status), 12) + pad(c.name, 14);
        if (!c.exception.empty())
            out += c.exception + ": ";
        out += c.message;
        if (!c.detail.empty())
            out += " (" + c.detail + ")";
        out += "\n";
    }
}

} // namespace

std::string cacheFileText(const cache::CacheFileReport& r)
{
    std::string out = "compiled_module " + r.path + "\n";
    if (r.file.isSymlink)
        out += "  symlink     -> " + r.file.symlinkTarget + "\n";
    if (r.file.exists)
        out += "  file        " + std::to_string(r.file.size) + " bytes, owner " + r.file.owner + " (uid "
            + std::to_string(r.file.uid) + "), mode " + modeText(r.file.mode) + "\n";
    if (const auto* a = r.artifact ? &*r.artifact : nullptr) {
        out += std::string("  backend     ") + config::backendName(a->backend) + " (top object " + a->topClass
            + ", pickle protocol " + std::to_string(a->pickleProtocol) + ")\n";
        if (a->hasMeta)
            out += "  meta        " + a->meta.repr() + "\n";
    }
    out += std::string("\nTorchAir's checks when ") + config::backendName(r.loader) + " loads it:\n";
    checksText(out, r, "  ");
    out += "  " + verdictLine(r) + "\n";
    out += "\nWhat TorchAir logs:\n";
    for (const std::string& line : r.log)
        out += "  " + line + "\n";
    if (!r.artifact) {
        out += "\nThe file could not be read: " + r.readError + "\n";
        return out;
    }
    const cache::CacheArtifact& a = *r.artifact;
    const cache::CompiledFn& fn = a.compiledFn;
    out += "\nCompiled function (compiled_fn, " + std::to_string(fn.bytes) + " bytes of marshal data):\n";
    if (const marshal::Code* code = fn.decoded ? fn.code.rootCode() : nullptr) {
        out += "  code        " + code->qualname + " in \"" + code->filename + "\", line "
            + std::to_string(code->firstLineNo) + "\n";
        out += "  arguments   " + joined(code->argumentNames()) + "\n";
        out += "  names       " + joined(code->names) + "\n";
        out += "  constants   " + joined(constReprs(fn.code, *code)) + "\n";
        std::vector<std::string> nested;
        for (uint32_t n : code->nested)
            nested.push_back(fn.code.codes[n].qualname);
        if (!nested.empty())
            out += "  nested      " + joined(nested) + "\n";
        std::vector<std::string> versions;
        for (const marshal::PyVersion& v : fn.versions.candidates)
            versions.push_back(v.text());
        out += "  python      " + (versions.empty() ? std::string("unknown") : joined(versions)) + " ("
            + fn.versions.reason + ")\n";
        out += "  calls       "
            + (fn.compiledFnNames.empty() ? std::string("no __compiled_fn") : joined(fn.compiledFnNames))
            + " (TorchAir binds exactly one to the generated kernel)\n";
        if (!fn.importedModules.empty())
            out += "  imports     " + joined(fn.importedModules) + " (imported at load)\n";
        if (!fn.userClasses.empty())
            out += "  classes     " + joined(fn.userClasses) + " (user classes imported at load)\n";
    } else {
        out += "  not readable: " + fn.error + "\n";
    }
    if (a.hasCompiledFx) {
        out += "\nGraph (py_code, TorchAir's generated module, " + std::to_string(a.pyCode.size()) + " chars):\n";
        if (a.module) {
            out += "  " + graphSummary(a.module->graph) + "\n";
            for (const auto& [k, v] : a.module->compileConfigs)
                out += "  compile_configs[" + k + "] = " + v + "\n";
            for (const auto& d : a.module->diagnostics)
                out += "  " + d.toString() + "\n";
        } else {
            out += "  not readable: " + a.moduleError + "\n";
        }
        out += "\nInput parameters (fetched from the live module at load, passed before the user inputs):\n";
        for (size_t i = 0; i < a.inputParameters.size(); ++i)
            out += "  " + pad(std::to_string(i), 4) + pad(a.inputParameters[i].first, 40)
                + (a.inputParameters[i].second ? "Parameter" : "Buffer") + "\n";
        if (a.inputParameters.empty())
            out += "  (none)\n";
        out += "\nSignature inputs:\n";
        for (const cache::SignatureInput& in : a.signature.inputs)
            out += "  " + std::to_string(in.index) + ":" + in.name + " " + in.kind + "(" + in.source
                + ")=" + in.example.substr(0, in.example.find('\n')) + "\n";
        out += "\nCompile options (part of the cache key):\n";
        for (const std::string& o : a.signature.options)
            out += "  " + o + "\n";
        for (const std::string& p : a.signature.problems)
            out += "  signature: " + p + "\n";
    } else {
        out += "\ncompiled_fx is None.\n";
    }
    if (!a.problems.empty()) {
        out += "\nProblems:\n";
        for (const std::string& p : a.problems)
            out += "  " + p + "\n";
    }
    return out;
}

std::string cacheFileJson(const cache::CacheFileReport& r, int indent)
{
    return jsonText(fileJson(r), indent);
}

namespace {

std::string distText(const cache::DistFolder& d)
{
    std::vector<std::string> parts;
    if (d.world)
        parts.push_back("world " + std::to_string(*d.world) + " rank " + std::to_string(*d.globalRank));
    if (d.tpRank)
        parts.push_back("tp " + std::to_string(*d.tpRank));
    if (d.ppRank)
        parts.push_back("pp " + std::to_string(*d.ppRank));
    return parts.empty() ? "-" : joined(parts, " ");
}

} // namespace

std::string cacheScanText(const cache::CacheScan& scan)
{
    std::string out = scan.rootKind + " " + scan.root + ": " + std::to_string(scan.entries.size()) + " cache file"
        + (scan.entries.size() == 1 ? "" : "s") + "\n";
    if (!scan.cacheDirOwner.empty())
        out += "  ValueError: " + scan.cacheDirOwner + "\n";
    if (!scan.entries.empty())
        out += "\n" + pad("CLASS", 18) + pad("TRACE", 9) + pad("MD5", 10) + pad("RANKS", 22) + pad("FUNC", 12)
            + pad("VERSION", 9) + "STATUS\n";
    for (const cache::CacheEntry& e : scan.entries) {
        const auto& r = e.report;
        std::string status;
        if (r.loads)
            status = "loads";
        else if (const cache::CacheCheck* f = r.firstFailure())
            status = "FAILS " + f->name + ": " + f->exception + ": " + f->message;
        out += pad(e.layoutKnown ? e.model.className : "?", 18)
            + pad(e.layoutKnown ? (e.model.dynamic ? "dynamic" : "static") : "?", 9)
            + pad(e.layoutKnown ? e.model.md5.substr(0, 8) : "?", 10) + pad(distText(e.dist), 22) + pad(e.func, 12)
            + pad(r.artifact && r.artifact->hasMeta ? r.artifact->meta.version : "?", 9) + status + "\n";
        out += "  " + e.relativePath;
        if (r.artifact && r.artifact->hasMeta)
            out += "  " + r.artifact->meta.name + "  " + r.artifact->meta.date;
        out += "\n";
    }
    if (!scan.notes.empty()) {
        out += "\nNotes:\n";
        for (const cache::ScanNote& n : scan.notes)
            out += "  " + n.path + ": " + n.message + "\n";
    }
    return out;
}

std::string cacheScanJson(const cache::CacheScan& scan, int indent)
{
    ordered_json j;
    j["root"] = scan.root;
    j["root_kind"] = scan.rootKind;
    if (!scan.cacheDirOwner.empty())
        j["cache_dir_error"] = scan.cacheDirOwner;
    ordered_json entries = ordered_json::array();
    for (const cache::CacheEntry& e : scan.entries) {
        ordered_json x;
        x["relative_path"] = e.relativePath;
        x["layout_known"] = e.layoutKnown;
        if (e.layoutKnown) {
            x["model_folder"] = { { "name", e.model.name }, { "class", e.model.className },
                { "dynamic", e.model.dynamic }, { "kind", e.model.kind }, { "md5", e.model.md5 } };
            ordered_json dist { { "name", e.dist.name } };
            dist["world"] = e.dist.world ? ordered_json(*e.dist.world) : ordered_json(nullptr);
            dist["global_rank"] = e.dist.globalRank ? ordered_json(*e.dist.globalRank) : ordered_json(nullptr);
            dist["tp_rank"] = e.dist.tpRank ? ordered_json(*e.dist.tpRank) : ordered_json(nullptr);
            dist["pp_rank"] = e.dist.ppRank ? ordered_json(*e.dist.ppRank) : ordered_json(nullptr);
            x["dist"] = dist;
        }
        x["func"] = e.func;
        x["report"] = fileJson(e.report);
        entries.push_back(std::move(x));
    }
    j["entries"] = entries;
    ordered_json notes = ordered_json::array();
    for (const cache::ScanNote& n : scan.notes)
        notes.push_back({ { "path", n.path }, { "message", n.message } });
    j["notes"] = notes;
    return jsonText(j, indent);
}

std::string cacheKeyText(const cache::CacheKey& key, const std::vector<KeyAgainst>& against)
{
    std::string out = std::string("Cache key of this ") + config::backendName(key.backend) + " config:\n  options  "
        + key.optionString + "\n";
    std::vector<std::string> changed;
    for (const cache::KeyOption& o : key.options)
        if (!o.isDefault)
            changed.push_back(o.key + "=" + o.value);
    out += "  changed  " + (changed.empty() ? std::string("(all defaults)") : joined(changed)) + "\n";
    if (key.md5)
        out += "  md5      " + *key.md5 + "  -> folder <Class>_<dynamic|static>_aclgraphcache_" + *key.md5 + "\n";
    else
        out += "  md5      (give --repr FILE, the module's str(), to compute md5(repr + options))\n";
    out += "\nNot part of the key (changing them reuses a cache built with other values):\n  "
        + joined(cache::optionsNotInKey(key.backend)) + "\n";
    if (!key.settingsOutsideKey.empty())
        out += "  You set: " + joined(key.settingsOutsideKey) + "\n";
    for (const std::string& n : key.notes)
        out += "  note: " + n + "\n";
    for (const KeyAgainst& a : against) {
        out += "\n" + a.path + ": " + cache::verdictName(a.match.verdict) + "\n  " + a.match.explanation + "\n";
        for (const auto& [k, cached, mine] : a.match.differences)
            out += "    " + pad(k, 34) + "cache " + pad(cached, 16) + "config " + mine + "\n";
        if (a.match.reprMatchesEntry)
            out += std::string("  the given repr is ") + (*a.match.reprMatchesEntry ? "" : "NOT ")
                + "the one this entry was built with (md5 of repr + its own options "
                + (*a.match.reprMatchesEntry ? "matches" : "does not match") + " the folder)\n";
    }
    return out;
}

std::string cacheKeyJson(const cache::CacheKey& key, const std::vector<KeyAgainst>& against, int indent)
{
    ordered_json j;
    j["backend"] = config::backendName(key.backend);
    j["option_string"] = key.optionString;
    ordered_json options = ordered_json::array();
    for (const cache::KeyOption& o : key.options)
        options.push_back({ { "key", o.key }, { "value", o.value }, { "default", o.isDefault } });
    j["options"] = options;
    j["md5"] = key.md5 ? ordered_json(*key.md5) : ordered_json(nullptr);
    j["not_in_key"] = cache::optionsNotInKey(key.backend);
    j["settings_outside_key"] = key.settingsOutsideKey;
    j["notes"] = key.notes;
    ordered_json entries = ordered_json::array();
    for (const KeyAgainst& a : against) {
        ordered_json d = ordered_json::array();
        for (const auto& [k, cached, mine] : a.match.differences)
            d.push_back({ { "key", k }, { "cache", cached }, { "config", mine } });
        ordered_json e { { "path", a.path }, { "folder_md5", a.folderMd5 },
            { "verdict", cache::verdictName(a.match.verdict) }, { "differences", d },
            { "explanation", a.match.explanation } };
        e["md5_matches"] = a.match.md5Matches ? ordered_json(*a.match.md5Matches) : ordered_json(nullptr);
        e["repr_matches_entry"]
            = a.match.reprMatchesEntry ? ordered_json(*a.match.reprMatchesEntry) : ordered_json(nullptr);
        entries.push_back(std::move(e));
    }
    j["entries"] = entries;
    return jsonText(j, indent);
}

} // namespace engine::report
