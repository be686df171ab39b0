#include "policy/pair_table.h"

#include <gtest/gtest.h>
