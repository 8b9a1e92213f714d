#include "engine/graph/sym_expr.h"

#include <gtest/gtest.h>

using engine::ErrorCode;
using engine::SymbolValues;
using engine::SymExpr;

namespace {

SymExpr parsed(const std::string& text)
{
    auto e = SymExpr::parse(text);
    EXPECT_TRUE(e.ok()) << text << ": " << (e.ok() ? "" : e.error().message);
    return e.ok() ? e.value() : SymExpr();
}

int64_t evalOf(const std::string& text, const SymbolValues& values = {})
{
    auto v = parsed(text).eval(values);
    EXPECT_TRUE(v.ok()) << text << ": " << (v.ok() ? "" : v.error().message);
    return v.ok() ? v.value() : -999999;
}

std::string parseError(const std::string& text)
{
    auto e = SymExpr::parse(text);
    EXPECT_FALSE(e.ok()) << text;
    if (e.ok())
        return {};
    EXPECT_EQ(e.error().code, ErrorCode::ParseError);
    return e.error().message;
}

std::string evalError(const std::string& text, const SymbolValues& values = {})
{
    auto v = parsed(text).eval(values);
    EXPECT_FALSE(v.ok()) << text;
    return v.ok() ? std::string() : v.error().message;
}

} // namespace

TEST(SymExpr, DefaultAndConstant)
{
    SymExpr zero;
    EXPECT_EQ(zero.text(), "0");
    EXPECT_EQ(zero.constantValue(), 0);
    SymExpr c = SymExpr::constant(4096);
    EXPECT_EQ(c.text(), "4096");
    EXPECT_EQ(c.constantValue(), 4096);
    EXPECT_FALSE(c.singleSymbol());
    EXPECT_TRUE(c.symbols().empty());
    EXPECT_EQ(SymExpr::constant(-3).text(), "-3");
}

TEST(SymExpr, TextIsNormalised)
{
    EXPECT_EQ(parsed("  s0*4 ").text(), "s0*4");
    EXPECT_EQ(parsed("2*s1+1").text(), "2*s1 + 1");
    EXPECT_EQ(parsed("2 * s1 + 1").text(), "2*s1 + 1");
    EXPECT_EQ(parsed("(s0//2)").text(), "s0//2");
    EXPECT_EQ(parsed("((-u1)//3)").text(), "-u1//3");
    EXPECT_EQ(parsed("FloorDiv(s0,2)").text(), "FloorDiv(s0, 2)");
    EXPECT_EQ(parsed("Max(1, s0)").text(), "Max(1, s0)");
    EXPECT_EQ(parsed("s0 - (s1 + 1)").text(), "s0 - (s1 + 1)");
    EXPECT_EQ(parsed("(s0 - s1) + 1").text(), "s0 - s1 + 1");
    EXPECT_EQ(parsed("s0 // (2*s1)").text(), "s0//(2*s1)");
    EXPECT_EQ(parsed("(s0*s1)//2").text(), "s0*s1//2");
    EXPECT_EQ(parsed("-(s0 + 1)").text(), "-(s0 + 1)");
    EXPECT_EQ(parsed("(-2)**2").text(), "(-2)**2");
    EXPECT_EQ(parsed("s0**2").text(), "s0**2");
    EXPECT_EQ(parsed("-4").text(), "-4");
}

TEST(SymExpr, NormalisedTextReadsTheSame)
{
    SymbolValues v { { "s0", 7 }, { "s1", -3 }, { "u1", 5 } };
    for (const char* text : { "s0 - (s1 + 1)", "((-u1)//3)", "s0 // (2*s1)", "(s0*s1)//2", "-(s0 + 1)*2", "(-2)**2",
             "-2**2", "2**-0", "s0 % -(s1)", "(s0 % 4) % 3", "s0 % (4 % 3)" }) {
        SymExpr e = parsed(text);
        SymExpr again = parsed(e.text());
        EXPECT_EQ(again.text(), e.text()) << text;
        EXPECT_EQ(again.eval(v).value(), e.eval(v).value()) << text;
    }
}

TEST(SymExpr, Symbols)
{
    SymExpr e = parsed("s1*s0 + s1 + Max(1, u0)");
    EXPECT_EQ(e.symbols(), (std::vector<std::string> { "s0", "s1", "u0" }));
    EXPECT_FALSE(e.constantValue());
    EXPECT_EQ(parsed("s0").singleSymbol(), "s0");
    EXPECT_EQ(parsed(" ( s0 ) ").singleSymbol(), "s0");
    EXPECT_FALSE(parsed("s0*1").singleSymbol());
    EXPECT_EQ(parsed("_sym_2").singleSymbol(), "_sym_2");
    EXPECT_EQ(parsed("2*3 + 1").constantValue(), 7);
    EXPECT_FALSE(parsed("1//0").constantValue());
}

TEST(SymExpr, PythonIntegerSemantics)
{
    EXPECT_EQ(evalOf("7//2"), 3);
    EXPECT_EQ(evalOf("-7//2"), -4);
    EXPECT_EQ(evalOf("7//-2"), -4);
    EXPECT_EQ(evalOf("-7//-2"), 3);
    EXPECT_EQ(evalOf("7 % 3"), 1);
    EXPECT_EQ(evalOf("-7 % 3"), 2);
    EXPECT_EQ(evalOf("7 % -3"), -2);
    EXPECT_EQ(evalOf("-7 % -3"), -1);
    EXPECT_EQ(evalOf("s0 // 3", { { "s0", -1 } }), -1);
    EXPECT_EQ(evalOf("FloorDiv(s0, 4)", { { "s0", -5 } }), -2);
    EXPECT_EQ(evalOf("CeilDiv(s0, 4)", { { "s0", 5 } }), 2);
    EXPECT_EQ(evalOf("CeilDiv(s0, 4)", { { "s0", -5 } }), -1);
    EXPECT_EQ(evalOf("CeilDiv(8, 4)"), 2);
    EXPECT_EQ(evalOf("Mod(s0, 8)", { { "s0", -1 } }), 7);
    EXPECT_EQ(evalOf("PythonMod(-1, 8)"), 7);
    EXPECT_EQ(evalOf("CleanDiv(12, 4)"), 3);
    EXPECT_EQ(evalOf("ModularIndexing(37, 4, 5)"), 4);
    EXPECT_EQ(evalOf("-2**2"), -4);
    EXPECT_EQ(evalOf("(-2)**2"), 4);
    EXPECT_EQ(evalOf("2**3**2"), 512);
    EXPECT_EQ(evalOf("1**4611686018427387904"), 1);
    EXPECT_EQ(evalOf("2*3 + 4*5 - 6"), 20);
    EXPECT_EQ(evalOf("10 - 3 - 2"), 5);
    EXPECT_EQ(evalOf("24 // 4 // 3"), 2);
    EXPECT_EQ(evalOf("--3"), 3);
    EXPECT_EQ(evalOf("+3"), 3);
}

TEST(SymExpr, Functions)
{
    SymbolValues v { { "s0", 5 }, { "s1", 9 } };
    EXPECT_EQ(evalOf("Max(1, s0, s1)", v), 9);
    EXPECT_EQ(evalOf("Min(s1, s0)", v), 5);
    EXPECT_EQ(evalOf("Max(s0)", v), 5);
    EXPECT_EQ(evalOf("floor(s0/2)", v), 2);
    EXPECT_EQ(evalOf("ceiling(s0/2)", v), 3);
    EXPECT_EQ(evalOf("floor(-s0/2)", v), -3);
    EXPECT_EQ(evalOf("ceiling(-s0/2)", v), -2);
    EXPECT_EQ(evalOf("s0/5*2", v), 2);
    EXPECT_EQ(evalOf("IntTrueDiv(s1 + 1, s0)", v), 2);
    EXPECT_EQ(evalOf("TruncToInt(-s0/2)", v), -2);
    EXPECT_EQ(evalOf("Abs(s0 - s1)", v), 4);
    EXPECT_EQ(evalOf("Max(s0/5, 2)", v), 2);
    EXPECT_NE(evalError("Max(s0/2, 2)", v).find("not an integer (5/2)"), std::string::npos);
}

TEST(SymExpr, EvaluationErrors)
{
    EXPECT_NE(evalError("s0*2").find("no value for symbol 's0'"), std::string::npos);
    EXPECT_NE(evalError("s0 // (s1 - 4)", { { "s0", 8 }, { "s1", 4 } }).find("division by zero ('s1 - 4' is 0)"),
        std::string::npos);
    EXPECT_NE(evalError("Mod(s0, s1)", { { "s0", 8 }, { "s1", 0 } }).find("division by zero"), std::string::npos);
    std::string half = evalError("s0/2", { { "s0", 5 } });
    EXPECT_NE(half.find("not an integer (5/2)"), std::string::npos) << half;
    EXPECT_NE(half.find("s0=5"), std::string::npos) << half;
    EXPECT_NE(evalError("2**-1").find("non-negative integer powers"), std::string::npos);
    EXPECT_NE(evalError("9223372036854775807 + 1").find("64 bits"), std::string::npos);
    EXPECT_NE(evalError("4294967296*4294967296").find("64 bits"), std::string::npos);
    EXPECT_NE(evalError("2**64").find("64 bits"), std::string::npos);
    EXPECT_EQ(evalOf("9223372036854775807"), INT64_MAX);
}

TEST(SymExpr, ParseErrorsNameThePosition)
{
    EXPECT_EQ(parseError("s0 $ 2"), "invalid size expression 's0 $ 2': unexpected '$' at position 4");
    EXPECT_EQ(parseError("s0 +"),
        "invalid size expression 's0 +': expected a number, a symbol or '(' at the end (position 5)");
    EXPECT_EQ(parseError(""), "invalid size expression '': expected a number, a symbol or '(' at the end (position 1)");
    EXPECT_EQ(parseError("(s0 + 1"), "invalid size expression '(s0 + 1': expected ')' at the end (position 8)");
    EXPECT_EQ(parseError("s0)"), "invalid size expression 's0)': unexpected ')' at position 3");
    EXPECT_EQ(
        parseError("2.5*s0"), "invalid size expression '2.5*s0': unexpected '.' (sizes are integers) at position 2");
    EXPECT_EQ(parseError("Foo(s0)"), "invalid size expression 'Foo(s0)': unknown function 'Foo' at position 1");
    EXPECT_EQ(
        parseError("Max()"), "invalid size expression 'Max()': Max() takes at least 1 argument, got 0 at position 1");
    EXPECT_EQ(parseError("FloorDiv(s0)"),
        "invalid size expression 'FloorDiv(s0)': FloorDiv() takes 2 arguments, got 1 at position 1");
    EXPECT_EQ(parseError("floor(1, 2)"),
        "invalid size expression 'floor(1, 2)': floor() takes 1 argument, got 2 at position 1");
    EXPECT_EQ(parseError("Max(1 2)"), "invalid size expression 'Max(1 2)': expected ',' or ')' at position 7");
    EXPECT_EQ(parseError("99999999999999999999"),
        "invalid size expression '99999999999999999999': integer too large at position 1");
    EXPECT_EQ(parseError("s0 ** "),
        "invalid size expression 's0 ** ': expected a number, a symbol or '(' at the end (position 7)");
}

TEST(SymExpr, HostileInputIsRefused)
{
    std::string deep(100000, '(');
    EXPECT_NE(parseError(deep + "1").find("nested too deeply"), std::string::npos);
    std::string negs(100000, '-');
    EXPECT_NE(parseError(negs + "s0").find("nested too deeply"), std::string::npos);
    std::string chain = "1";
    for (int i = 0; i < 100000; ++i)
        chain += "+1";
    EXPECT_NE(parseError(chain).find("nested too deeply"), std::string::npos);
    // Long but flat is fine.
    std::string wide = "Max(0";
    for (int i = 0; i < 10000; ++i)
        wide += ", " + std::to_string(i);
    EXPECT_EQ(evalOf(wide + ")"), 9999);
}
