#pragma once
/// The graph view's colours and role names, shared by the window's scene (graph_items.cpp, as
/// QColor) and the drawings in reports (graph_svg.cpp, as SVG colours). Plain C++: no Qt.
///
/// Each colour means one thing (kColourMeanings lists them all, and a test checks that no colour
/// has two meanings): pale fills say what kind of node a box is, strong outlines say what the user
/// or the stepper points at, and a pass's rewrite has its own teal border and "R" badge.
#include "engine/graph/graph_view.h"
#include "engine/runtime/event_focus.h"

#include <cstdio>
#include <string>
#include <vector>

namespace gui::graph {

struct Rgb {
    int r = 0, g = 0, b = 0;
    std::string hex() const
    {
        char buf[8];
        std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r & 255, g & 255, b & 255);
        return buf;
    }
    /// As QColor::darker(factor): value divided by factor/100, hue and saturation kept.
    Rgb darker(int factor) const { return { r * 100 / factor, g * 100 / factor, b * 100 / factor }; }
};

/// Fill colour of a node by its role.
constexpr Rgb roleRgb(engine::view::NodeRole role)
{
    using engine::view::NodeRole;
    switch (role) {
    case NodeRole::Parameter:
        return { 200, 230, 201 }; // green
    case NodeRole::Static:
        return { 207, 216, 220 }; // blue grey
    case NodeRole::MutatedInput:
        return { 248, 187, 208 }; // pink (orange is the stepper's "copied")
    case NodeRole::UserInput:
        return { 187, 222, 251 }; // light blue
    case NodeRole::SymInt:
        return { 215, 204, 200 }; // beige
    case NodeRole::Intermediate:
        return { 250, 250, 250 }; // near white
    case NodeRole::Output:
        return { 255, 241, 118 }; // yellow
    }
    return { 250, 250, 250 };
}

/// The legend's text for a role ("parameter", "mutated input", ...).
constexpr const char* roleText(engine::view::NodeRole role)
{
    using engine::view::NodeRole;
    switch (role) {
    case NodeRole::Parameter:
        return "parameter";
    case NodeRole::Static:
        return "static";
    case NodeRole::MutatedInput:
        return "mutated input";
    case NodeRole::UserInput:
        return "user input";
    case NodeRole::SymInt:
        return "sym int";
    case NodeRole::Intermediate:
        return "intermediate";
    case NodeRole::Output:
        return "output";
    }
    return "intermediate";
}

/// Every role, in the legend's order.
constexpr engine::view::NodeRole kLegendRoles[] = { engine::view::NodeRole::Parameter, engine::view::NodeRole::Static,
    engine::view::NodeRole::MutatedInput, engine::view::NodeRole::UserInput, engine::view::NodeRole::SymInt,
    engine::view::NodeRole::Intermediate, engine::view::NodeRole::Output };

namespace palette {
constexpr Rgb kSelected { 25, 118, 210 }; ///< outline of the selected box
constexpr Rgb kHighlight { 213, 0, 249 }; ///< outline of highlighted boxes and the edges between them
constexpr Rgb kRewritten { 0, 131, 143 }; ///< border and "R" badge of a node a pass rewrote
constexpr Rgb kEdge { 96, 125, 139 };
constexpr Rgb kText { 33, 33, 33 };
constexpr Rgb kDetail { 97, 97, 97 };
constexpr Rgb kNodeBorder { 117, 117, 117 };
constexpr Rgb kGroupFill { 232, 234, 246 };
constexpr Rgb kGroupBorder { 57, 73, 171 };
constexpr Rgb kGroupSheetBorder { 121, 134, 203 }; ///< the offset sheet behind a group
constexpr int kGroupSheetDarker = 108; ///< the sheet's fill: kGroupFill.darker(108)
/// Far out, a box is a block of its role's colour, a little darker (pale fills fade into the white
/// canvas at a few pixels), with a darker one-pixel outline.
constexpr int kSpeckFillDarker = 115;
constexpr int kSpeckOutlineDarker = 160;
/// Far out, an edge is one pixel wide at this opacity (of 255).
constexpr int kFarEdgeAlpha = 60;
} // namespace palette

/// The outline the stepper gives a node its current event concerns (engine/runtime/event_focus.h).
constexpr Rgb focusRgb(engine::runtime::FocusRole role)
{
    using engine::runtime::FocusRole;
    switch (role) {
    case FocusRole::Copied:
        return { 239, 108, 0 }; // orange
    case FocusRole::Kept:
        return { 120, 144, 156 }; // grey
    case FocusRole::Returned:
        return { 46, 125, 50 }; // green
    case FocusRole::Rebuilt:
        return { 121, 85, 72 }; // brown (blue is the selection)
    case FocusRole::Hazard:
        return { 211, 47, 47 }; // red
    }
    return { 120, 144, 156 };
}

/// The legend's text for a focus outline ("copied input", ...).
constexpr const char* focusText(engine::runtime::FocusRole role)
{
    using engine::runtime::FocusRole;
    switch (role) {
    case FocusRole::Copied:
        return "stepper: copied input";
    case FocusRole::Kept:
        return "stepper: kept input";
    case FocusRole::Returned:
        return "stepper: returned output";
    case FocusRole::Rebuilt:
        return "stepper: rebuilt output";
    case FocusRole::Hazard:
        return "stepper: hazard";
    }
    return "stepper";
}

constexpr engine::runtime::FocusRole kFocusRoles[]
    = { engine::runtime::FocusRole::Copied, engine::runtime::FocusRole::Kept, engine::runtime::FocusRole::Returned,
          engine::runtime::FocusRole::Rebuilt, engine::runtime::FocusRole::Hazard };

/// How a colour is drawn: as a box's fill, a box's outline, or a badge.
enum class ColourUse { Fill, Outline, Badge };

/// One colour and the one thing it means.
struct ColourMeaning {
    Rgb colour;
    const char* meaning;
    ColourUse use;
};

/// Every colour that says something, with its meaning: node kinds (fills), the folded group, the
/// selection, highlight, a pass's rewrite and the stepper's outlines. Edges, text and plain borders
/// carry no meaning and are not listed.
inline std::vector<ColourMeaning> colourMeanings()
{
    std::vector<ColourMeaning> out;
    for (engine::view::NodeRole r : kLegendRoles)
        out.push_back({ roleRgb(r), roleText(r), ColourUse::Fill });
    out.push_back({ palette::kGroupFill, "folded group (click + to open)", ColourUse::Fill });
    out.push_back({ palette::kSelected, "selected", ColourUse::Outline });
    out.push_back({ palette::kHighlight, "highlighted", ColourUse::Outline });
    out.push_back({ palette::kRewritten, "rewritten by a pass", ColourUse::Badge });
    for (engine::runtime::FocusRole r : kFocusRoles)
        out.push_back({ focusRgb(r), focusText(r), ColourUse::Outline });
    return out;
}

/// Box geometry the scene and the drawings share (points).
namespace shape {
constexpr double kCornerRadius = 6;
constexpr double kSheetOffset = 4; ///< a group's sheet, down and right
constexpr double kTextInset = 8; ///< text and marker from the box's left and right edges
constexpr double kMarkerSize = 14; ///< a group's boxed "+"
constexpr double kMarkerSpace = 20; ///< text starts this far right of the marker's left edge
constexpr double kLabelPixels = 11; ///< name line, bold
constexpr double kDetailPixels = 10; ///< detail line
constexpr double kArrowLength = 9; ///< an arrowhead drawn when Graphviz gave none
} // namespace shape

} // namespace gui::graph
