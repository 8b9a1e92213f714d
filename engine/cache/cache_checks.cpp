#include "engine/cache/cache_checks.h"

#include "engine/core/file_io.h"
#include "engine/core/py_value.h"
#include "engine/runtime/torchair_text.h"

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace engine::cache {

namespace {

constexpr uint64_t kMaxCacheFileBytes = uint64_t(2) << 30;

std::string userName(uint32_t uid)
{
    struct passwd pw;
    struct passwd* found = nullptr;
    char buffer[4096];
    if (getpwuid_r(uid, &pw, buffer, sizeof buffer, &found) == 0 && found)
        return found->pw_name;
    return std::to_string(uid);
}

std::string seconds3(double s)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", s);
    return buf;
}

} // namespace

FileFacts statFile(const std::string& path)
{
    FileFacts f;
    f.realPath = path;
    struct stat l;
    if (lstat(path.c_str(), &l) != 0)
        return f;
    f.lstatUid = l.st_uid;
    f.isSymlink = S_ISLNK(l.st_mode);
    if (f.isSymlink) {
        char target[PATH_MAX];
        const ssize_t n = readlink(path.c_str(), target, sizeof target - 1);
        if (n >= 0)
            f.symlinkTarget.assign(target, size_t(n));
    }
    if (char* real = realpath(path.c_str(), nullptr)) {
        f.realPath = real;
        std::free(real);
    }
    struct stat s;
    if (stat(path.c_str(), &s) != 0)
        return f;
    f.exists = true;
    f.isRegular = S_ISREG(s.st_mode);
    f.uid = s.st_uid;
    f.mode = s.st_mode & 07777;
    f.size = uint64_t(s.st_size);
    f.mtime = int64_t(s.st_mtime);
    f.owner = userName(f.uid);
    return f;
}

const char* statusName(CacheCheck::Status s)
{
    switch (s) {
    case CacheCheck::Status::Passed:
        return "passed";
    case CacheCheck::Status::Failed:
        return "FAILED";
    case CacheCheck::Status::Warning:
        return "warning";
    case CacheCheck::Status::NotReached:
        return "not reached";
    }
    return "?";
}

const CacheCheck* CacheFileReport::firstFailure() const
{
    for (const CacheCheck& c : checks)
        if (c.status == CacheCheck::Status::Failed)
            return &c;
    return nullptr;
}

namespace {

struct Checker {
    CacheFileReport& r;
    bool failed = false;

    void pass(const std::string& name, const std::string& seen) { add(name, CacheCheck::Status::Passed, "", seen); }
    void warn(const std::string& name, const std::string& seen) { add(name, CacheCheck::Status::Warning, "", seen); }
    void fail(const std::string& name, const std::string& exception, const std::string& message)
    {
        add(name, CacheCheck::Status::Failed, exception, message);
    }
    void add(
        const std::string& name, CacheCheck::Status status, const std::string& exception, const std::string& message)
    {
        if (failed)
            status = CacheCheck::Status::NotReached;
        r.checks.push_back(
            CacheCheck { name, status, status == CacheCheck::Status::Failed ? exception : "", message, "" });
        if (status == CacheCheck::Status::Failed)
            failed = true;
    }
    void info(const std::string& text)
    {
        r.log.push_back(std::string("[INFO] ") + runtime::text::loggerTag(r.loader) + " " + text);
    }
    void debug(const std::string& text)
    {
        r.log.push_back(std::string("[DEBUG] ") + runtime::text::loggerTag(r.loader) + " " + text);
    }
    void warning(const std::string& text)
    {
        r.log.push_back(std::string("[WARNING] ") + runtime::text::loggerTag(r.loader) + " " + text);
    }
};

/// The parameter and buffer sources `_get_used_params` fetches from the live module, and the ones
/// it can only resolve through a closure of the cached function (`L['x'].attr` with x != self).
void checkParameters(Checker& c, const CacheArtifact& a)
{
    std::vector<std::string> closures;
    for (size_t i = 0; i < a.inputParameters.size(); ++i) {
        const auto& [name, isParameter] = a.inputParameters[i];
        c.debug("Prefetch input " + std::to_string(i) + " from " + (isParameter ? "parameter " : "buffer ") + name);
        const std::string head = name.substr(0, name.find('.'));
        if (head.rfind("L[", 0) == 0 && head.find("'self'") == std::string::npos)
            closures.push_back((isParameter ? "parameter " : "buffer ") + name);
    }
    std::string seen
        = std::to_string(a.inputParameters.size()) + " parameters and buffers are fetched from the live module";
    if (closures.empty()) {
        c.pass("parameters",
            seen + " (found only at load; a missing one raises \"<parameter|buffer> <name> not supported now\")");
        return;
    }
    c.warn("parameters",
        seen + "; " + std::to_string(closures.size())
            + " resolve only through a closure of the cached function, else TorchAir raises ValueError(\""
            + closures.front() + " not supported now\")");
}

/// What Python's C unpickler says where our reader stops (the reader's own text goes to the
/// detail): an empty file is EOFError "Ran out of input", a cut one "pickle data was truncated", a
/// byte that is no opcode "invalid load key, 'x'.".
std::pair<std::string, std::string> pythonUnpicklingError(const std::string& ours, uint64_t size)
{
    if (size == 0)
        return { "EOFError", "Ran out of input" };
    if (ours.find("truncated") != std::string::npos || ours.find("bytes are left") != std::string::npos
        || ours.find(" left)") != std::string::npos)
        return { "UnpicklingError", "pickle data was truncated" };
    const size_t at = ours.find("unknown opcode 0x");
    if (at != std::string::npos && at + 19 <= ours.size()) {
        const int byte = std::stoi(ours.substr(at + 17, 2), nullptr, 16);
        std::string key;
        if (byte >= 0x20 && byte < 0x7f)
            key = std::string(1, char(byte));
        else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", byte);
            key = buf;
        }
        return { "UnpicklingError", "invalid load key, '" + key + "'." };
    }
    return { "UnpicklingError", ours.empty() ? "the file was not read" : ours };
}

/// repr() of the bound method cache_compile wraps, from meta.name (`Model.prompt(x)`); the module's
/// own repr is not in the file.
std::string methodRepr(const std::string& metaName)
{
    const std::string qualname = metaName.substr(0, metaName.find('('));
    const size_t dot = qualname.find_last_of('.');
    if (qualname.empty() || dot == std::string::npos)
        return "<the cached method>";
    std::string cls = qualname.substr(0, dot);
    cls = cls.substr(cls.find_last_of('.') + 1);
    return "<bound method " + qualname + " of " + cls + "(...)>";
}

} // namespace

CacheFileReport checkCacheFile(const std::string& path, const CheckOptions& options)
{
    CacheFileReport r;
    r.path = path;
    r.file = statFile(path);
    r.loader = options.loader.value_or(config::Backend::TorchAir);
    Checker c { r };
    const uint32_t uid = options.uid.value_or(uint32_t(getuid()));

    // Read first, whatever the checks will say: the user still wants to see what is inside, and
    // the file's classes say which backend loads it (and logs).
    if (r.file.exists && r.file.isRegular) {
        const auto start = std::chrono::steady_clock::now();
        auto bytes
            = readTextFile(r.file.realPath, std::min(kMaxCacheFileBytes, options.read.limits.maxBytes), "cache file");
        if (!bytes) {
            r.readError = bytes.error().toString();
        } else {
            auto artifact = readCacheArtifact(bytes.value(), path, options.read);
            if (artifact)
                r.artifact = std::move(artifact.value());
            else
                r.readError = artifact.error().toString();
        }
        r.readSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    if (!options.loader && r.artifact)
        r.loader = r.artifact->backend;

    // readable_cache checks the path as given first; the loader works on its realpath.
    if (options.purpose == Purpose::Readable) {
        if (!r.file.exists) // os.path.exists follows a link: a dangling one does not exist
            c.fail("exists", "ValueError", "Cache file " + path + " is not exists");
        else
            c.pass("exists", path);
        if (r.file.isSymlink)
            c.fail("symlink", "ValueError", "Cache file " + path + " can not be a symlink");
        else
            c.pass("symlink", "not a symlink");
    }
    const std::string bin = r.file.realPath;
    if (options.purpose == Purpose::Load && !r.file.exists) {
        // LazyCompiledModel.compile only loads what os.path.exists: no file, no error.
        r.checks.push_back(CacheCheck { "exists", CacheCheck::Status::Failed, "",
            "no cache file: TorchAir compiles afresh and saves one here", "" });
        c.failed = true;
        c.info("Compiling cache for " + methodRepr("") + " to " + bin);
        return r;
    }
    c.info("Loading cache from " + bin);
    if (!r.file.exists) {
        if (options.purpose == Purpose::Load)
            c.fail("exists", "ValueError", "Cache file " + bin + " is not exists");
    } else if (!r.file.isRegular && pathKindOf(bin) == PathKind::Directory) {
        c.fail("exists", "IsADirectoryError", "[Errno 21] Is a directory: " + pyStrRepr(bin));
    } else if (!r.file.isRegular) {
        // A FIFO, socket or device: TorchAir's open() would block or read garbage; we never open it.
        c.fail("exists", "", notReadError(path, pathKindOf(bin)).message);
    } else if (options.purpose == Purpose::Load) {
        c.pass("exists",
            r.file.isSymlink ? bin + " (through the symlink " + path + " -> " + r.file.symlinkTarget + ")" : bin);
    }
    // _validate_owner runs lstat and stat on the realpath, which is no link any more: both see the
    // file itself, whose owner statFile's stat already gave.
    const bool present = r.file.exists;
    if (present && r.file.uid != uid)
        c.fail("owner", "PermissionError", "File must be owned by the current user");
    else if (present)
        c.pass("owner", "owned by " + r.file.owner + " (uid " + std::to_string(r.file.uid) + ")");
    else
        c.add("owner", CacheCheck::Status::NotReached, "", "");
    if (present && (r.file.mode & 0777) != 0600) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%o", r.file.mode & 0777);
        c.fail("permissions", "PermissionError", "Permissions must be 600");
        r.checks.back().detail = std::string("the file has mode ") + mode;
    } else if (present) {
        c.pass("permissions", "600");
    } else {
        c.add("permissions", CacheCheck::Status::NotReached, "", "");
    }

    const char* version = cacheVersion(r.loader);

    if (!r.artifact) {
        const auto [exception, message] = pythonUnpicklingError(r.readError, r.file.size);
        c.fail("unpickle", exception, message);
        r.checks.back().detail = r.readError;
    } else {
        const CacheArtifact& a = *r.artifact;
        const auto refused = refusedClasses(a, r.loader);
        if (!refused.empty()) {
            const pickle::Finding& f = refused.front();
            if (f.what == pickle::Finding::What::Class)
                c.fail("unpickle", "UnpicklingError", "Forbidden deserialize " + f.module + "." + f.name);
            else if (f.what == pickle::Finding::What::PersistentId)
                c.fail("unpickle", "UnpicklingError",
                    "A load persistent id instruction was encountered, but no persistent_load function was specified.");
            else
                c.fail("unpickle", "ValueError", "unregistered extension code " + f.name);
            std::string also;
            for (size_t i = 1; i < refused.size(); ++i)
                also += (i > 1 ? ", " : "") + refused[i].label();
            if (!also.empty())
                r.checks.back().detail = "it also names " + also;
        } else if (!a.isArtifact) {
            c.fail("unpickle", "AttributeError", "'" + a.topClass + "' object has no attribute 'meta'");
        } else if (!a.hasMeta) {
            c.fail("unpickle", "AttributeError", "'ModelCacheArtifact' object has no attribute 'meta'");
        } else {
            c.pass(
                "unpickle", "protocol " + std::to_string(a.pickleProtocol) + ", classes of " + cacheModule(r.loader));
            c.info("load cache from " + bin + " took " + seconds3(r.readSeconds) + " [s]");
        }
        if (a.hasMeta && a.meta.version != version)
            c.fail("version", "ValueError", "Version mismatch: " + a.meta.version + " != " + version);
        else if (a.hasMeta)
            c.pass("version", a.meta.version);
        else
            c.add("version", CacheCheck::Status::NotReached, "", "");

        if (!a.compiledFn.decoded)
            c.fail("compiled_fn", "ValueError",
                a.compiledFn.error.empty() ? "bad marshal data (compiled_fn is missing)"
                                           : "bad marshal data: " + a.compiledFn.error);
        else
            c.pass("compiled_fn", std::to_string(a.compiledFn.bytes) + " bytes of marshalled code");
        if (!c.failed)
            c.info("Cache " + a.meta.repr() + " loaded from " + bin);
        if (options.purpose == Purpose::Readable) {
            // readable_cache stops after the load: no rebase, no exec, no parameters.
            if (!a.hasCompiledFx && !c.failed)
                c.fail("compiled_fx", "AttributeError", "'NoneType' object has no attribute 'signature'");
            else if (!c.failed)
                c.pass("compiled_fx", "signature " + std::to_string(a.signatureText.size()) + " chars");
            r.loads = !c.failed;
            return r;
        }

        if (!a.hasCompiledFx)
            c.fail("compiled_fx", "RuntimeError",
                "Recompile CompiledModel(" + a.meta.repr() + ") not compiled yet is not supported yet");
        else
            c.pass("compiled_fx",
                "signature " + std::to_string(a.signatureText.size()) + " chars, py_code "
                    + std::to_string(a.pyCode.size()) + " chars");

        const auto& names = a.compiledFn.compiledFnNames;
        if (a.compiledFn.decoded && names.size() != 1)
            c.fail("compiled_fns", "ValueError", "Expected 1 compiled function, found " + pyStrList(names));
        else if (a.compiledFn.decoded)
            c.pass("compiled_fns", names.front());
        else
            c.add("compiled_fns", CacheCheck::Status::NotReached, "", "");

        if (!a.hasCompiledFx)
            c.add("py_code", CacheCheck::Status::NotReached, "", "");
        else if (a.module)
            c.pass("py_code",
                "reads as TorchAir's generated module: graph " + a.module->graph.id + ", "
                    + std::to_string(a.module->graph.nodes.size()) + " nodes");
        else
            c.warn("py_code", "our reader cannot read it (TorchAir's exec may still succeed): " + a.moduleError);
        if (!c.failed)
            c.info(a.meta.name + " compile graph took " + seconds3(0) + " [s]");
        if (a.hasCompiledFx && !c.failed)
            checkParameters(c, a);
    }
    r.loads = !c.failed;
    if (const CacheCheck* f = r.firstFailure(); f && options.purpose == Purpose::Load) {
        c.warning("Clear broken cache " + bin + " as " + f->message);
        c.info("Compiling cache for " + methodRepr(r.artifact ? r.artifact->meta.name : "") + " to " + bin);
    }
    return r;
}

std::string readableText(const CacheArtifact& a, std::optional<marshal::PyVersion> python)
{
    std::string listing;
    if (!a.compiledFn.decoded) {
        listing = "<compiled_fn could not be read: " + a.compiledFn.error + ">\n";
    } else {
        marshal::PyVersion v
            = python.value_or(a.compiledFn.versions.candidates.empty() ? marshal::PyVersion {}
                                                                       : a.compiledFn.versions.candidates.front());
        auto dis = marshal::disListing(a.compiledFn.code, v);
        listing = dis ? dis.value() : "<compiled_fn could not be disassembled: " + dis.error().toString() + ">\n";
    }
    return std::string(100, '=') + "\n" + a.meta.repr() + "\n" + a.signatureText + "\n" + prettyTitle("caller frame")
        + "\n" + listing;
}

std::string readableFileText(const CacheArtifact& a, std::optional<marshal::PyVersion> python)
{
    const std::string text = readableText(a, python);
    std::string out = "# ";
    for (char ch : text) {
        out += ch;
        if (ch == '\n')
            out += "# ";
    }
    return out + "\n" + a.pyCode;
}

std::string checkReadableOutput(const std::string& path, std::optional<uint32_t> uid)
{
    const FileFacts f = statFile(path);
    if (f.isSymlink)
        return "Output file " + path + " can not be a symlink";
    if (!f.exists)
        return {};
    const uint32_t me = uid.value_or(uint32_t(getuid()));
    if (f.uid != me || f.lstatUid != me)
        return "File must be owned by the current user";
    if ((f.mode & 0777) != 0600)
        return "Permissions must be 600";
    return {};
}

} // namespace engine::cache
