#pragma once
/// A TorchAir compile-cache file (`compiled_module`, torchair-behavior.md §5.2) read without running
/// anything: the pickle through the safe reader (engine/pickle), `compiled_fn` through the marshal
/// reader and our disassembler (engine/marshal), `py_code` through the generated-module reader
/// (readers/torchair_module.h), annotated by the graph printed in `signature`.
///
///   ModelCacheArtifact(meta=ModelCacheMeta(name, date, version),
///                      compiled_fn=<marshal.dumps(Dynamo-transformed code)>,
///                      compiled_fx=CompiledFX(signature, py_code, input_parameters))
///
/// The classes live in `torchair.inference._cache_compiler` (cache version 1.0.5) or
/// `npugraph_ex.inference._cache_compiler` (1.0.6); which one a file names tells its backend.
#include "engine/config/options.h"
#include "engine/core/result.h"
#include "engine/marshal/disassembler.h"
#include "engine/marshal/marshal_reader.h"
#include "engine/pickle/pickle_document.h"
#include "engine/pickle/pickle_reader.h"
#include "engine/readers/torchair_module.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engine::cache {

/// `CompiledModel.VERSION` of each backend's cache compiler.
const char* cacheVersion(config::Backend backend); ///< "1.0.5" / "1.0.6"
/// `torchair.inference._cache_compiler` / `npugraph_ex.inference._cache_compiler`
const char* cacheModule(config::Backend backend);

struct CacheMeta {
    std::string name; ///< `Model.prompt(x)`: qualname + inspect.signature
    std::string date; ///< `2026-06-01 12:00:00.123456+00:00`
    std::string version; ///< "1.0.5"
    /// str(meta): `ModelCacheMeta(name='Model.prompt(x)', date='...', version='1.0.5')`
    std::string repr() const;
};

/// `_pretty_title(title)`: the title centred in 100 characters of '-'.
std::string prettyTitle(std::string_view title, size_t length = 100);

/// One placeholder line of the signature's inputs section:
/// `0:arg0_1 Parameter(linear1.weight)=<example>` / `Buffer(...)` / `UserInput(0)`.
struct SignatureInput {
    int index = 0;
    std::string name; ///< placeholder name
    std::string kind; ///< "Parameter", "Buffer" or "UserInput"
    std::string source; ///< parameter source name, or the user input's index as written
    std::string example; ///< the example value as printed
};

/// `CompiledFX.signature` cut into its sections (`_pretty_title('graph module')`,
/// `print_readable(False)`, `_pretty_title('inputs')`, one line per placeholder,
/// `_pretty_title('compile options')`, the options of the cache key one per line).
struct Signature {
    std::string graphCode; ///< the print_readable text
    int graphFirstLine = 0; ///< its first line's number in the signature (1-based)
    std::vector<SignatureInput> inputs;
    std::vector<std::string> options; ///< `key=value`, in order
    bool wellFormed = false; ///< all three titles found in order
    std::vector<std::string> problems;
};
Signature parseSignature(std::string_view text);

/// What `compiled_fn` holds: the transformed code of the cached method.
struct CompiledFn {
    size_t bytes = 0;
    bool decoded = false;
    std::string error; ///< why the marshal data could not be read
    marshal::Document code;
    marshal::VersionGuess versions; ///< which Python wrote it
    std::vector<std::string> compiledFnNames; ///< co_names starting with `__compiled_fn`
    std::vector<std::string> importedModules; ///< `__import_torch_dot_nn` -> torch.nn, imported at load
    std::vector<std::string> userClasses; ///< `<user_class>mod|Name` constants, imported at load
};

struct CacheArtifact {
    std::string path;
    config::Backend backend = config::Backend::TorchAir; ///< from the classes the file names
    int pickleProtocol = 0;
    /// Every class (and extension code, persistent id) the pickle names, first seen first.
    std::vector<pickle::Finding> classRefs;
    std::string topClass; ///< "torchair.inference._cache_compiler.ModelCacheArtifact", or the top value's type
    bool isArtifact = false; ///< the top value is a ModelCacheArtifact of either backend
    bool hasMeta = false;
    CacheMeta meta;
    bool hasCompiledFx = false; ///< compiled_fx is not None
    std::string signatureText;
    Signature signature;
    std::string pyCode;
    std::vector<std::pair<std::string, bool>> inputParameters; ///< (source, is nn.Parameter)
    CompiledFn compiledFn;
    /// py_code read as TorchAir's generated module, annotated by the signature's graph.
    std::optional<readers::TorchairModule> module;
    std::string moduleError; ///< why py_code could not be read (TorchAir's exec would fail too)
    std::vector<std::string> problems; ///< fields of the wrong type or missing
};

/// The references `loader`'s strict unpickler refuses, in the order it would meet them (its
/// find_class raises on the first: `Forbidden deserialize <module>.<name>`).
std::vector<pickle::Finding> refusedClasses(const CacheArtifact& artifact, config::Backend loader);

struct ReadOptions {
    pickle::Limits limits;
    bool readModule = true; ///< read py_code into a graph
    std::function<bool(uint64_t done, uint64_t total)> progress;
};

/// Reads a compiled_module's bytes. Fails only when the bytes are no readable pickle (the error
/// names `path` and the offset); everything else (foreign classes, missing fields, a broken
/// compiled_fn or py_code) is recorded in the artifact for the checks to report.
Result<CacheArtifact> readCacheArtifact(
    std::string_view bytes, const std::string& path, const ReadOptions& options = {});

} // namespace engine::cache
