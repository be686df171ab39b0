#include "policy/pair_cross_validation.h"

#include <gtest/gtest.h>
