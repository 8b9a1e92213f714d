#pragma once
/// Builds one Graph from the `forward` of a class in FX readable code (internal to readFxCode): the
/// signature's parameters, then one statement at a time. A statement it cannot read is a warning
/// and is skipped; one that would leave the graph inconsistent (a name used but never defined, a
/// name defined twice) makes error() non-empty, after which the builder ignores further input.
#include "engine/readers/fx_reader_internal.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace engine::readers::detail {

/// An annotation as written: a string literal (`"f32[4]"`, text decoded) or other source text
/// (`torch.Tensor`, or PyTorch 2.0's unquoted `f32[4]`).
struct AnnotationSource {
    bool present = false;
    bool isString = false;
    std::string text;
    size_t offset = 0;
};

struct Param {
    std::string name;
    size_t offset = 0;
    AnnotationSource annotation;
    std::string descriptor; ///< the `# PlainAOTInput(idx=0)` comment after it, if any
};

/// A long text shortened for a message.
inline std::string shortText(const std::string& s)
{
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

class ForwardBuilder {
public:
    ForwardBuilder(std::string_view text, DiagnosticSink& sink, std::string graphId);

    void addParam(const Param& p, const LogicalLine& line);
    void statement(const LogicalLine& line);
    void comment(const LogicalLine& line);
    void blank();
    const std::optional<Error>& error() const { return m_error; }
    /// Completes the graph: output node, getitem synthesis, finalize().
    Result<Graph> finish();

private:
    struct Pending {
        std::string target; ///< "operator.iadd", "operator.setitem"
        std::vector<Arg> args;
        std::string object; ///< the name the printer assigns from next (`x_1 = x`)
    };
    struct Target {
        std::string name;
        size_t offset = 0;
        AnnotationSource annotation;
    };

    Position at(size_t offset) const;
    void warn(size_t offset, const std::string& message);
    void fail(size_t offset, const std::string& message);
    void skipLine(size_t offset, const std::string& message);

    bool part(size_t begin, size_t end, size_t index, std::optional<Pending>& pending);
    bool assignment(
        size_t begin, size_t end, const std::vector<size_t>& equals, size_t index, std::optional<Pending>& pending);
    bool parseTarget(size_t begin, size_t end, Target& out);
    bool nodeFromValue(const Target& target, const Expr& value);
    bool callNode(Node& n, const Expr& value);
    bool returnStatement(size_t begin, size_t end);
    bool pytreeFlatten(const Expr& targets, const Expr& value);
    bool convertArgs(const std::vector<const Expr*>& exprs, std::vector<Arg>& out);
    bool convert(const Expr& e, Arg& out);

    bool define(Node n, size_t offset, bool annotated);
    void addPlaceholder(
        const std::string& name, size_t offset, const AnnotationSource& annotation, const std::string& descriptor);
    void removePlaceholders(const std::set<std::string>& names);
    bool applyAnnotation(Node& n, const AnnotationSource& annotation);
    bool isNode(const std::string& name) const { return m_names.count(name) > 0; }
    std::string undefinedMessage(const std::string& name) const;

    std::string_view m_text;
    DiagnosticSink& m_sink;
    Graph m_graph;
    std::map<std::string, int> m_names; ///< node names and placeholder aliases -> index
    std::vector<bool> m_annotated; ///< per node: the statement printed an annotation
    std::map<std::string, int> m_skipped; ///< names of statements that could not be read -> line
    std::map<std::string, std::pair<AnnotationSource, std::string>> m_pendingAnnotations; ///< pytree
    std::string m_provenance;
    std::string m_boxedSource; ///< `args_list` of `args_iter = iter(args_list)`
    bool m_boxed = false;
    bool m_returned = false;
    bool m_pass = false;
    bool m_warnedAfterReturn = false;
    int m_lastProblemLine = 0;
    Position m_lastPosition;
    std::optional<Error> m_error;

    // The statement being read.
    const LogicalLine* m_line = nullptr;
    std::vector<Token> m_tokens; ///< its tokens without comments
    std::string m_lineComment; ///< its trailing comment, if any
    int m_lineNode = -1; ///< node the statement defined (for the "= None" tail)
};

} // namespace engine::readers::detail
