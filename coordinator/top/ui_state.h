// What the keys change: sort column and order, pause, legend, scroll position,
// quit.
// Kept apart from the terminal (screen.cc turns keys into Commands) so the
// effect of every key is tested without one.
#ifndef IASHIM_COORDINATOR_TOP_UI_STATE_H_
#define IASHIM_COORDINATOR_TOP_UI_STATE_H_

#include "coordinator/top/table_layout.h"

namespace iashim::top {

enum class Command {
  kQuit,
  kNextSort,
  kReverse,
  kTogglePause,
  kToggleLegend,  // the legend in place of the table, and back
  kScrollUp,
  kScrollDown,
  kPageUp,
  kPageDown,
  kHome,
  kEnd,
  kRedraw,  // terminal resized or Ctrl-L: nothing changes but the picture
};

struct UiState {
  SortState sort;
  bool paused = false;
  bool legend = false;
  int scroll = 0;  // first body line shown
  bool quit = false;
};

// Applies `command`. `page` is the number of body lines on screen and
// `max_scroll` the largest useful scroll (both from the last layout), so
// scrolling stops at the ends instead of counting into nothing.
void Apply(Command command, int page, int max_scroll, UiState* state);

}  // namespace iashim::top

#endif  // IASHIM_COORDINATOR_TOP_UI_STATE_H_
