#include "engine/cache/cache_artifact.h"

#include "engine/core/py_value.h"
#include "engine/readers/fx_reader.h"

#include <cctype>

namespace engine::cache {

const char* cacheVersion(config::Backend backend)
{
    return backend == config::Backend::NpugraphEx ? "1.0.6" : "1.0.5";
}

const char* cacheModule(config::Backend backend)
{
    return backend == config::Backend::NpugraphEx ? "npugraph_ex.inference._cache_compiler"
                                                  : "torchair.inference._cache_compiler";
}

std::string CacheMeta::repr() const
{
    return "ModelCacheMeta(name=" + pyStrRepr(name) + ", date=" + pyStrRepr(date) + ", version=" + pyStrRepr(version)
        + ")";
}

std::string prettyTitle(std::string_view title, size_t length)
{
    const size_t pad = length > title.size() ? length - title.size() : 0;
    return std::string(pad / 2, '-') + std::string(title) + std::string(pad - pad / 2, '-');
}

namespace {

std::vector<std::string_view> splitLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t nl = text.find('\n', start);
        if (nl == std::string_view::npos) {
            if (start < text.size())
                lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, nl - start));
        start = nl + 1;
    }
    return lines;
}

/// `<i>:<name> <Kind>(<source>)=<example>`; false when the line is no input line (a continuation
/// of the previous example, which may print over several lines).
bool parseInputLine(std::string_view line, SignatureInput& out)
{
    size_t i = 0;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])))
        ++i;
    if (i == 0 || i > 9 || i >= line.size() || line[i] != ':')
        return false;
    const size_t space = line.find(' ', i + 1);
    if (space == std::string_view::npos || space == i + 1)
        return false;
    std::string_view rest = line.substr(space + 1);
    for (const char* kind : { "Parameter(", "Buffer(", "UserInput(" }) {
        const std::string_view k(kind);
        if (rest.substr(0, k.size()) != k)
            continue;
        const size_t close = rest.find(")=", k.size());
        if (close == std::string_view::npos)
            return false;
        out.index = std::stoi(std::string(line.substr(0, i)));
        out.name = std::string(line.substr(i + 1, space - i - 1));
        out.kind = std::string(k.substr(0, k.size() - 1));
        out.source = std::string(rest.substr(k.size(), close - k.size()));
        out.example = std::string(rest.substr(close + 2));
        return true;
    }
    return false;
}

} // namespace

Signature parseSignature(std::string_view text)
{
    Signature sig;
    const std::string titles[3]
        = { prettyTitle("graph module"), prettyTitle("inputs"), prettyTitle("compile options") };
    const auto lines = splitLines(text);
    size_t at[3] = { lines.size(), lines.size(), lines.size() };
    size_t next = 0;
    for (size_t i = 0; i < lines.size() && next < 3; ++i)
        if (lines[i] == titles[next])
            at[next++] = i;
    if (next < 3) {
        static const char* names[3] = { "graph module", "inputs", "compile options" };
        sig.problems.push_back(std::string("the signature has no '") + names[next] + "' title line");
    }
    sig.wellFormed = next == 3;
    if (at[0] < lines.size()) {
        sig.graphFirstLine = int(at[0]) + 2;
        const size_t end = std::min(at[1], lines.size());
        for (size_t i = at[0] + 1; i < end; ++i) {
            sig.graphCode.append(lines[i]);
            sig.graphCode += '\n';
        }
    }
    if (at[1] < lines.size()) {
        for (size_t i = at[1] + 1; i < std::min(at[2], lines.size()); ++i) {
            SignatureInput in;
            if (parseInputLine(lines[i], in))
                sig.inputs.push_back(std::move(in));
            else if (!sig.inputs.empty())
                sig.inputs.back().example += "\n" + std::string(lines[i]);
            else if (!lines[i].empty())
                sig.problems.push_back(
                    "input line " + std::to_string(i + 1) + " is not '<i>:<name> <Kind>(<source>)=<example>'");
        }
    }
    if (at[2] < lines.size())
        for (size_t i = at[2] + 1; i < lines.size(); ++i)
            if (!lines[i].empty())
                sig.options.emplace_back(lines[i]);
    return sig;
}

namespace {

bool isCacheClass(const std::string& full, std::string_view name, config::Backend* backend)
{
    for (config::Backend b : { config::Backend::TorchAir, config::Backend::NpugraphEx }) {
        const std::string want = std::string(cacheModule(b)) + "." + std::string(name);
        if (full == want) {
            if (backend)
                *backend = b;
            return true;
        }
    }
    return false;
}

/// The Str field `name` of `object`, with a problem noted when it is missing or no str.
std::string strField(const pickle::Document& doc, uint32_t object, const char* owner, const char* name,
    std::vector<std::string>& problems, bool* found = nullptr)
{
    const uint32_t id = pickle::field(doc, object, name);
    const pickle::Value* v = doc.get(id);
    if (found)
        *found = v && v->kind == pickle::Kind::Str;
    if (!v) {
        problems.push_back(std::string(owner) + "." + name + " is missing");
        return {};
    }
    if (v->kind != pickle::Kind::Str) {
        problems.push_back(std::string(owner) + "." + name + " is a " + pickle::kindName(v->kind) + ", not a str");
        return {};
    }
    return std::string(doc.str(id));
}

void readCompiledFn(std::string_view bytes, const std::string& path, CompiledFn& fn)
{
    fn.bytes = bytes.size();
    auto code = marshal::readMarshal(bytes, path + " [compiled_fn]");
    if (!code) {
        fn.error = code.error().toString();
        return;
    }
    fn.code = std::move(code.value());
    const marshal::Code* root = fn.code.rootCode();
    if (!root) {
        fn.error = path + " [compiled_fn]: the marshal data is no code object";
        return;
    }
    fn.decoded = true;
    fn.versions = marshal::guessVersion(fn.code);
    for (const std::string& name : root->names) {
        if (name.rfind("__compiled_fn", 0) == 0)
            fn.compiledFnNames.push_back(name);
        if (name.rfind("__import_", 0) == 0) {
            std::string module = name.substr(9);
            for (size_t at = 0; (at = module.find("_dot_", at)) != std::string::npos;)
                module.replace(at, 5, ".");
            fn.importedModules.push_back(module);
        }
    }
    for (uint32_t c : root->consts) {
        const marshal::Value& v = fn.code.at(c);
        if (v.kind == marshal::Kind::Str && v.text.rfind("<user_class>", 0) == 0) {
            std::string cls = v.text.substr(12);
            const size_t bar = cls.find('|');
            if (bar != std::string::npos)
                cls[bar] = '.';
            fn.userClasses.push_back(cls);
        }
    }
}

void readModule(CacheArtifact& a)
{
    // The signature's graph has the forward's node names and their tensor annotations; read it with
    // the signature's own line numbers so that diagnostics point into the signature text.
    std::optional<Graph> annotated;
    if (!a.signature.graphCode.empty()) {
        const std::string code
            = std::string(size_t(std::max(0, a.signature.graphFirstLine - 1)), '\n') + a.signature.graphCode;
        auto fx = readers::readFxCode(code, a.path + " [signature]");
        if (fx && !fx->graphs.empty())
            annotated = std::move(fx->graphs.front());
        else if (!fx)
            a.problems.push_back("the signature's graph does not read: " + fx.error().toString());
    }
    auto module = readers::readTorchairModule(a.pyCode, a.path + " [py_code]", annotated ? &*annotated : nullptr);
    if (!module) {
        a.moduleError = module.error().toString();
        return;
    }
    a.module = std::move(module.value());
    // The generated module knows parameter_user_inputs, not which of them are buffers (a KV cache):
    // input_parameters does, in placeholder order. Only nn.Parameters are static under frozen_parameter.
    size_t i = 0;
    for (Node& n : a.module->graph.nodes) {
        if (n.op != NodeOp::Placeholder || i >= a.inputParameters.size())
            continue;
        if (!a.inputParameters[i].second && n.inputKind == InputKind::Parameter)
            n.inputKind = InputKind::Buffer;
        ++i;
    }
}

} // namespace

std::vector<pickle::Finding> refusedClasses(const CacheArtifact& artifact, config::Backend loader)
{
    const pickle::AllowList allow
        = loader == config::Backend::NpugraphEx ? pickle::AllowList::npugraphEx() : pickle::AllowList::torchair();
    std::vector<pickle::Finding> refused;
    for (const pickle::Finding& f : artifact.classRefs)
        if (f.what != pickle::Finding::What::Class || !allow.allows(f.module, f.name))
            refused.push_back(f);
    return refused;
}

Result<CacheArtifact> readCacheArtifact(std::string_view bytes, const std::string& path, const ReadOptions& options)
{
    pickle::ReadOptions po;
    po.limits = options.limits;
    po.progress = options.progress;
    auto read = pickle::readPickle(bytes, path, po); // no allow-list: every class is a finding here
    if (!read)
        return read.error();
    const pickle::Document& doc = read.value();

    CacheArtifact a;
    a.path = path;
    a.pickleProtocol = doc.protocol;
    const uint32_t root = doc.root;
    a.topClass = pickle::className(doc, root);
    config::Backend backend = config::Backend::TorchAir;
    bool backendKnown = isCacheClass(a.topClass, "ModelCacheArtifact", &backend);
    a.isArtifact = backendKnown && doc.at(root).kind == pickle::Kind::Object;
    if (a.topClass.empty())
        a.topClass = pickle::kindName(doc.at(root).kind);
    if (!backendKnown)
        for (const pickle::Finding& f : doc.findings)
            if (f.what == pickle::Finding::What::Class && isCacheClass(f.module + "." + f.name, f.name, &backend)) {
                backendKnown = true;
                break;
            }

    if (a.isArtifact) {
        const uint32_t meta = pickle::field(doc, root, "meta");
        if (pickle::className(doc, meta).empty() || !doc.get(meta)) {
            a.problems.push_back("ModelCacheArtifact.meta is missing or no ModelCacheMeta");
        } else {
            a.hasMeta = true;
            a.meta.name = strField(doc, meta, "ModelCacheMeta", "name", a.problems);
            a.meta.date = strField(doc, meta, "ModelCacheMeta", "date", a.problems);
            a.meta.version = strField(doc, meta, "ModelCacheMeta", "version", a.problems);
        }
        const uint32_t fnId = pickle::field(doc, root, "compiled_fn");
        const pickle::Value* fn = doc.get(fnId);
        if (!fn)
            a.problems.push_back("ModelCacheArtifact.compiled_fn is missing");
        else if (fn->kind != pickle::Kind::Bytes)
            a.problems.push_back(
                std::string("ModelCacheArtifact.compiled_fn is a ") + pickle::kindName(fn->kind) + ", not bytes");
        else
            readCompiledFn(doc.bytes(fnId), path, a.compiledFn);

        const uint32_t fx = pickle::field(doc, root, "compiled_fx");
        const pickle::Value* fxv = doc.get(fx);
        if (!fxv)
            a.problems.push_back("ModelCacheArtifact.compiled_fx is missing");
        else if (fxv->kind == pickle::Kind::Object) {
            a.hasCompiledFx = true;
            a.signatureText = strField(doc, fx, "CompiledFX", "signature", a.problems);
            bool pyCodeFound = false;
            a.pyCode = strField(doc, fx, "CompiledFX", "py_code", a.problems, &pyCodeFound);
            // Nothing to read: the reason names the place (TorchAir's exec of it would fail too).
            if (a.pyCode.empty())
                a.moduleError = path + ": $.compiled_fx.py_code: "
                    + (pyCodeFound ? std::string("an empty str: no generated module to read")
                                   : a.problems.back() + ": no generated module to read");
            a.signature = parseSignature(a.signatureText);
            const uint32_t params = pickle::field(doc, fx, "input_parameters");
            const pickle::Value* pv = doc.get(params);
            if (!pv || (pv->kind != pickle::Kind::List && pv->kind != pickle::Kind::Tuple)) {
                a.problems.push_back("CompiledFX.input_parameters is missing or no list");
            } else {
                for (uint32_t item : doc.items(params)) {
                    const auto pair = doc.items(item);
                    const pickle::Value* v = doc.get(item);
                    if (!v || v->kind != pickle::Kind::Tuple || pair.size() != 2
                        || doc.at(pair[0]).kind != pickle::Kind::Str || doc.at(pair[1]).kind != pickle::Kind::Bool) {
                        a.problems.push_back("CompiledFX.input_parameters has an entry that is no (str, bool) pair: "
                            + pickle::repr(doc, item, 200));
                        continue;
                    }
                    a.inputParameters.emplace_back(std::string(doc.str(pair[0])), doc.at(pair[1]).boolean());
                }
            }
        } else if (fxv->kind != pickle::Kind::None) {
            a.problems.push_back(std::string("ModelCacheArtifact.compiled_fx is a ") + pickle::kindName(fxv->kind)
                + ", not a CompiledFX");
        }
    }
    if (!backendKnown && a.meta.version == cacheVersion(config::Backend::NpugraphEx))
        backend = config::Backend::NpugraphEx;
    a.backend = backend;

    a.classRefs = doc.findings;

    if (options.readModule && a.hasCompiledFx && !a.pyCode.empty())
        readModule(a);
    return a;
}

} // namespace engine::cache
