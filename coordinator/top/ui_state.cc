#include "coordinator/top/ui_state.h"

#include <algorithm>

namespace iashim::top {

void Apply(Command command, int page, int max_scroll, UiState* state) {
  page = std::max(page, 1);
  max_scroll = std::max(max_scroll, 0);
  int scroll = state->scroll;
  switch (command) {
    case Command::kQuit:
      state->quit = true;
      break;
    case Command::kNextSort:
      state->sort.key = NextSortKey(state->sort.key);
      break;
    case Command::kReverse:
      state->sort.reversed = !state->sort.reversed;
      break;
    case Command::kTogglePause:
      state->paused = !state->paused;
      break;
    case Command::kToggleLegend:
      // A different body: the old position means nothing in it.
      state->legend = !state->legend;
      scroll = 0;
      break;
    case Command::kScrollUp:
      scroll -= 1;
      break;
    case Command::kScrollDown:
      scroll += 1;
      break;
    case Command::kPageUp:
      scroll -= page;
      break;
    case Command::kPageDown:
      scroll += page;
      break;
    case Command::kHome:
      scroll = 0;
      break;
    case Command::kEnd:
      scroll = max_scroll;
      break;
    case Command::kRedraw:
      break;
  }
  state->scroll = std::clamp(scroll, 0, max_scroll);
}

}  // namespace iashim::top
